// nanopu::Thread's traditional path (nanopu/memory_message.h): whole
// messages copied between the mbufs and memory in one pass each way — the
// DMA of a traditional NIC — instead of a call per word (the copies are
// bulk_words.cc's). Every call is still a scheduler safe point.
#include "lib/contract/inline_msg.h"
#include "lib/contract/message.h"
#include "nanopu/memory_message.h"
#include "nanopu/stats.h"
#include "nanopu/thread.h"
#include "scheduler/worker.h"

namespace nanopu {

ApiError Thread::receive_message(MemoryMessage* m) {
  RuntimeScope scope(this);
  worker_->safe_point();
  if (rx_msg_ == nullptr && !next_rx_message()) return ApiError::kRxEmpty;  // a poll: not misuse
  m->header = AppHeader::from_word(rx_header_);
  m->rx_tsc = msg_start_tsc_;
  m->sender_core_ns = static_cast<double>(entry_core_time(rx_msg_)) / 16;
  // The words not yet read (all of them unless read() began the message).
  rx_header_pending_ = false;
  const uint32_t n = (rx_bytes_left_ + 7) / 8;
  m->payload.resize(n);
  copy_rx_words(m->payload.data(), n);
  rx_words_left_ = 0;  // the header's count: nothing left for msg_done to count as flushed
  msg_done();
  return ApiError::kOk;
}

ApiError Thread::send_message(AppHeader header, std::span<const uint64_t> payload) {
  RuntimeScope scope(this);
  worker_->safe_point();
  if (tx_words_left_ != 0) return fail(ApiError::kMessageOpen);
  if (header.len == 0 || payload.size() != header.payload_words()) return fail(ApiError::kBadLength);
  // The header reserves the whole message (or fails cleanly); write_word()
  // would then swallow the payload words of a failed one: nothing follows
  // here, so its discard count is cleared.
  if (const ApiError e = write_word(header.word()); e != ApiError::kOk) {
    tx_words_left_ = 0;
    tx_discarding_ = false;
    return e;
  }
  // All words but the last, a packet's segment at a time; the last goes
  // through write_word(), which hands the message to the NIC core.
  const auto last = static_cast<uint32_t>(payload.size() - 1);
  copy_tx_words(payload.data(), last);
  return write_word(payload[last]);
}

}  // namespace nanopu
