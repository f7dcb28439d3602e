// nanopu::Thread's bulk word calls (read_words, write_words) and the copies
// they share with the traditional path (memory_path.cc): whole packet
// segments moved per memcpy instead of a call per 8-byte word. The nanoPU
// reads a register a cycle; on a host core a call per word dominates a
// message's cost (nanopu-bench-thread-api), which is why the emulator has
// them. Every call is still a scheduler safe point.
#include <rte_mbuf.h>

#include <algorithm>
#include <cassert>
#include <cstring>

#include "lib/base/word_copy.h"
#include "lib/contract/tx_message.h"
#include "nanopu/stats.h"
#include "nanopu/thread.h"
#include "scheduler/worker.h"

namespace nanopu {

void Thread::copy_rx_words(uint64_t* dst, uint32_t n) {
  if (n == 0) return;
  // Full words, except that the message's last word may be short (its
  // bytes zero-padded: docs/wire.md). A segment holds whole words but a
  // message's last: words swap as they are copied, the short one alone.
  const uint32_t bytes = std::min<uint32_t>(8 * n, rx_bytes_left_);
  auto* out = reinterpret_cast<uint8_t*>(dst);
  for (uint32_t left = bytes; left != 0;) {
    if (rx_seg_off_ >= rx_seg_len_) enter_rx_segment(rx_seg_->next);  // the next packet's segment
    const uint32_t k = std::min(left, rx_seg_len_ - rx_seg_off_);
    // Only the message's end splits a word (read_word assumes the same):
    // a packet's payload is a whole number of words but the last packet's.
    assert(k % 8 == 0 || k == left);
    const uint32_t whole = k / 8;
    copy_swapping_words(out, rx_seg_data_ + rx_seg_off_, whole);
    if (const uint32_t tail = k % 8; tail != 0) {
      uint64_t w = 0;
      std::memcpy(&w, rx_seg_data_ + rx_seg_off_ + 8 * whole, tail);
      w = from_wire(w);
      std::memcpy(out + 8 * whole, &w, 8);
    }
    out += 8 * whole + (k % 8 != 0 ? 8 : 0);
    rx_seg_off_ += k;
    left -= k;
  }
  rx_bytes_left_ -= bytes;
  rx_words_left_ -= n;
}

void Thread::copy_tx_words(const uint64_t* src, uint32_t n) {
  for (uint32_t i = 0; i < n;) {
    if (tx_seg_words_left_ == 0) {  // the next packet's segment
      tx_seg_ = tx_seg_->next;
      tx_next_ = tx_segment_payload(tx_seg_);
      tx_seg_words_left_ = tx_segment_words(tx_seg_);
    }
    const uint32_t k = std::min(tx_seg_words_left_, n - i);
    copy_swapping_words(tx_next_, src + i, k);
    tx_next_ += 8 * k;
    tx_seg_words_left_ -= k;
    tx_words_left_ -= k;
    i += k;
  }
}

ApiError Thread::read_words(std::span<uint64_t> words) {
  RuntimeScope scope(this);
  worker_->safe_point();
  size_t i = 0;
  ApiError e = ApiError::kOk;
  if (!words.empty() && (rx_msg_ == nullptr || rx_header_pending_)) {
    e = read_word(&words[0]);  // a new message's header, or the empty FIFO's error
    i = e == ApiError::kOk ? 1 : 0;
  }
  if (e == ApiError::kOk) {
    const auto n = static_cast<uint32_t>(std::min<size_t>(words.size() - i, rx_words_left_));
    copy_rx_words(words.data() + i, n);
    i += n;
    if (i < words.size()) e = fail(ApiError::kReadPastEnd);
  }
  std::fill(words.begin() + static_cast<std::ptrdiff_t>(i), words.end(), 0);
  return e;
}

ApiError Thread::write_words(std::span<const uint64_t> words) {
  RuntimeScope scope(this);
  worker_->safe_point();
  ApiError first = ApiError::kOk;
  for (size_t i = 0; i < words.size();) {
    if (tx_words_left_ > 1 && !tx_discarding_) {
      // Payload that does not end the message: a segment at a time.
      const auto k = static_cast<uint32_t>(std::min<size_t>(words.size() - i, tx_words_left_ - 1));
      copy_tx_words(words.data() + i, k);
      i += k;
      continue;
    }
    // A header, a message's last word (it leaves), or a discarded word.
    const ApiError e = write_word(words[i++]);
    if (e != ApiError::kOk && first == ApiError::kOk) first = e;
  }
  return first;
}

}  // namespace nanopu
