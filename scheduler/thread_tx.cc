// nanopu::Thread's netTX side (nanoPU OSDI'21 §2.1, §3.4): a message's
// header reserves its buffers — for a small one, a slot in the register
// path (lib/contract/inline_msg.h) — its words go into them, and its last
// word hands it to the NIC core through the TX FIFO.
#include <rte_byteorder.h>
#include <rte_mbuf.h>

#include <algorithm>
#include <cstring>

#include "lib/base/tsan_handoff.h"
#include "lib/contract/clock.h"
#include "lib/contract/inline_msg.h"
#include "lib/contract/message.h"
#include "lib/contract/thread_fifos.h"
#include "lib/contract/tx_message.h"
#include "nanopu/stats.h"
#include "nanopu/thread.h"
#include "scheduler/worker.h"

namespace nanopu {

ApiError Thread::drop_incomplete_tx(const char* when) {
  if (tx_words_left_ == 0 || tx_discarding_) return ApiError::kOk;
  free_fifo_entry(tx_msg_);  // an inline slot is simply written again
  tx_msg_ = tx_seg_ = nullptr;
  tx_next_ = nullptr;
  tx_words_left_ = tx_seg_words_left_ = 0;
  report_misuse(ApiError::kIncomplete, when);
  return ApiError::kIncomplete;
}

ApiError Thread::write_slow(uint64_t word) {
  RuntimeScope scope(this);
  worker_->safe_point();
  return write_word(word);  // its run is granted as the scope ends
}

void Thread::grant_tx_run() {
  // Words that neither open a packet nor end the message (write_word()
  // sends on the last one).
  if (tx_msg_ == nullptr || tx_discarding_ || tx_words_left_ <= 1) return;
  const uint32_t words = std::min({tx_seg_words_left_, tx_words_left_ - 1, kFastWordsPerSafePoint});
  tx_run_granted_ = words;
  tx_run_idx_ = -static_cast<int64_t>(words);
  tx_run_end_ = tx_next_ + 8 * words;
}

uint32_t Thread::core_time_16ths() const {
  // Switched-out time is subtracted: another thread's work, or the NIC
  // loop's on a shared core, is not this message's.
  const uint64_t on_core = clock::ticks() - msg_begin_tsc_ - (away_tsc_ - away_at_begin_);
  const double v = static_cast<double>(on_core) * 16 * clock::ns_per_tick();
  return v >= 4294967295.0 ? UINT32_MAX : (v < 1 ? 1 : static_cast<uint32_t>(v));
}

ApiError Thread::write_word(uint64_t word) {
  return tx_words_left_ > 0 ? continue_message(word) : begin_message(word);
}

ApiError Thread::continue_message(uint64_t word) {
  if (tx_discarding_) {
    if (--tx_words_left_ == 0) tx_discarding_ = false;
    return tx_discard_error_;  // the header already failed and was counted
  }
  if (tx_seg_words_left_ == 0) {  // next packet's segment (1024 B = 128 words each)
    tx_seg_ = tx_seg_->next;
    tx_next_ = tx_segment_payload(tx_seg_);
    tx_seg_words_left_ = tx_segment_words(tx_seg_);
  }
  const uint64_t be = rte_cpu_to_be_64(word);
  std::memcpy(tx_next_, &be, 8);
  tx_next_ += 8;
  --tx_seg_words_left_;
  if (--tx_words_left_ == 0) hand_over_message();
  return ApiError::kOk;
}

void Thread::hand_over_message() {
  // Counted time: the words written, before the message leaves.
  clock::charge_cycles(0.5 * clock::work_costs().word_cycles * tx_msg_words_);
  const uint32_t core_time = msg_begin_tsc_ != 0 ? core_time_16ths() : 0;
  const uint64_t ready = clock::is_virtual() ? clock::ticks() : 0;
  if (is_inline(tx_msg_)) {
    InlineTxMsg* slot = inline_tx_of(tx_msg_);
    slot->core_time = core_time;
    slot->ready_tsc = ready;
  } else {
    if (core_time != 0) msg_meta(tx_msg_)->core_time = core_time;
    if (ready != 0) [[unlikely]] msg_meta(tx_msg_)->ready_tsc = ready;
  }
  // Space was reserved when the header was written; we are the only producer.
  (void)tx_fifo_->push(tx_msg_);
  if (fifos_->nic_doorbell != nullptr) fifos_->nic_doorbell->ring_if_sleeping();
  tx_msg_ = nullptr;
  ++counters_->tx_msgs;
}

ApiError Thread::begin_message(uint64_t word) {
  // A new message: `word` is its application header.
  const AppHeader h = AppHeader::from_word(word);
  auto discard = [&](ApiError e) {
    tx_words_left_ = h.payload_words();
    tx_discarding_ = tx_words_left_ > 0;
    tx_discard_error_ = e;
    return fail(e);
  };
  // 0.0.0.0 is no destination: most likely a payload word written past the
  // end of the previous message. Refused alone — no message begun, no word
  // discarded, so the next header is still taken as one.
  if (h.ip == 0) {
    report_misuse(ApiError::kBadHeader, "wrote a header to 0.0.0.0 (a word past its message's end?)");
    return ApiError::kBadHeader;
  }
  if (!bound_) return discard(ApiError::kNotBound);
  if (h.len == 0 || h.len > max_message_bytes_) return discard(ApiError::kBadLength);
  // nanoPU §3.4: writing the header reserves room for the whole message,
  // in the TX FIFO of the NIC core that owns the destination.
  tx_fifo_ = &fifos_->tx_for(h.ip);
  while (tx_fifo_->free_count() == 0) {
    if (worker_->stopping()) return discard(ApiError::kStopped);
    stall_on_tx();
  }
  tx_words_left_ = h.payload_words();
  tx_msg_words_ = 1 + h.payload_words();
  if (fifos_->tx_inline != nullptr && h.len <= kInlineTxBytes) {
    // The register path (inline_msg.h): the words go into a slot, the
    // NIC core makes the packet; this core touches no mbuf.
    InlineTxMsg& slot = fifos_->tx_inline[tx_slot_next_];
    tx_slot_next_ = tx_slot_next_ + 1 == fifos_->tx_inline_slots ? 0 : tx_slot_next_ + 1;
    NANOPU_TSAN_ACQUIRE(&slot);  // the NIC core read its last message (inline_msg.h)
    slot.app_header = word;
    slot.src_context = context_;
    slot.run = run_for(h.ip, h.context);
    slot.tag = ++tx_tag_;
    tx_msg_ = tx_seg_ = inline_entry(&slot);
    tx_next_ = slot.payload;
    tx_seg_words_left_ = tx_words_left_;
    return ApiError::kOk;
  }
  // One buffer per packet, framed in place by the NIC; all or nothing.
  tx_msg_ = alloc_tx_message(pool_, word, context_);
  if (tx_msg_ == nullptr) return discard(ApiError::kNoBuffers);
  tx_seg_ = tx_msg_;
  tx_next_ = tx_segment_payload(tx_seg_);
  tx_seg_words_left_ = tx_segment_words(tx_seg_);
  msg_meta(tx_msg_)->tag = ++tx_tag_;
  msg_meta(tx_msg_)->run = run_for(h.ip, h.context);
  return ApiError::kOk;
}

ApiError Thread::write_header(uint32_t dst_ip, uint16_t dst_context, size_t len_bytes, uint16_t run) {
  tx_run_named_ = run;
  const ApiError e = write_header(dst_ip, dst_context, len_bytes);
  tx_run_named_ = 0;
  return e;
}

bool Thread::tx_ready() const {
  for (uint32_t k = 0; k < fifos_->nic_cores; ++k)
    if (fifos_->tx[k].free_count() == 0) return false;
  return true;
}

void Thread::stall_on_tx() {
  ++counters_->tx_fifo_full_waits;
  if (clock::is_virtual()) [[unlikely]] {
    // Modelled time moves only between polls: the thread spins as the
    // hardware's would, the core's time charged a slice per look, and
    // gives the loop the core (an idle() that charged nothing held the
    // clock at one instant, the NIC never draining the FIFO: an
    // overloaded server's client livelocked nanopu-sim). Only the NIC
    // core makes room, and its doing anything ends the slice.
    const uint64_t from = clock::ticks();
    clock::charge_cycles(worker_->slice_cycles(kSliceCycles));
    worker_->yield_for_time(from);  // until the NIC core does something, or a decision is due
  } else {
    worker_->idle(slot_);
  }
}

bool Thread::wait_tx_room() {
  RuntimeScope scope(this);
  while (!tx_ready()) {
    if (has_message() || worker_->stopping()) return false;
    stall_on_tx();
  }
  return true;
}

ApiError Thread::write_header(uint32_t dst_ip, uint16_t dst_context, size_t len_bytes) {
  RuntimeScope scope(this);
  const ApiError dropped = drop_incomplete_tx("a new header with a message half-written: that one dropped");
  // An explicit header ends the swallowing of a failed header's words: this
  // word is a header, whatever write() was discarding.
  tx_discarding_ = false;
  tx_words_left_ = 0;
  if (len_bytes > kMaxMessageBytes || len_bytes > max_message_bytes_) {
    report_misuse(ApiError::kTooLong, "write_header() longer than a message can be");
    return ApiError::kTooLong;
  }
  if (len_bytes == 0) return fail(ApiError::kBadLength);
  const ApiError e = write_word(AppHeader{dst_ip, dst_context, static_cast<uint16_t>(len_bytes)}.word());
  return e == ApiError::kOk ? dropped : e;
}

}  // namespace nanopu
