// nanopu::Thread: the word-at-a-time register interface over mbuf messages.
// Every call is a scheduler safe point (docs/design.md, "Scheduler").
#include "nanopu/thread.h"
#include "lib/base/log.h"

#include <rte_byteorder.h>
#include <rte_mbuf.h>
#include <rte_pause.h>
#include <rte_prefetch.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "lib/base/tsan_handoff.h"
#include "lib/contract/clock.h"
#include "lib/contract/inline_msg.h"
#include "lib/contract/message.h"
#include "nanopu/limits.h"
#include "lib/contract/tx_message.h"
#include "nanopu/stats.h"
#include "lib/contract/context_table.h"
#include "scheduler/worker.h"

namespace nanopu {

Thread::Thread(uint32_t id, size_t slot, ThreadFifos* fifos, rte_mempool* pool,
               ContextTable* contexts, sched::Worker* worker, uint32_t max_message_bytes)
    : id_(id),
      slot_(slot),
      fifos_(fifos),
      pool_(pool),
      contexts_(contexts),
      worker_(worker),
      max_message_bytes_(max_message_bytes),
      counters_(new ThreadCounters),
      measure_app_(clock::work_costs().measured_ps_per_tsc > 0) {}

void Thread::app_code_begins() { app_code_since_tsc_ = rte_rdtsc(); }

void Thread::app_code_ends() {
  if (app_code_since_tsc_ == 0) return;
  const uint64_t tsc = rte_rdtsc() - app_code_since_tsc_;
  clock::charge_ps(static_cast<uint64_t>(static_cast<double>(tsc) * clock::work_costs().measured_ps_per_tsc));
}

Thread::~Thread() {
  unbind();
  free_fifo_entry(rx_msg_);
  free_fifo_entry(rx_next_);
  free_fifo_entry(tx_msg_);
  delete counters_;
}

absl::Status Thread::bind(uint16_t context, uint8_t priority) {
  RuntimeScope scope(this);
  if (bound_)
    return absl::FailedPreconditionError(
        absl::StrCat("thread ", id_, " is already bound to context ", context_));
  fifos_->priority.store(priority, std::memory_order_relaxed);
  if (absl::Status s = contexts_->bind(context, fifos_); !s.ok()) return s;
  bound_ = true;
  context_ = context;
  priority_ = priority;
  worker_->on_bound(slot_);
  return absl::OkStatus();
}

void Thread::unbind() {
  if (!bound_) return;
  contexts_->unbind(context_, fifos_);
  bound_ = false;
}

ApiError Thread::fail(ApiError e) {
  last_error_ = e;
#ifndef NDEBUG
  // Debug builds say so once per thread; every build returns the error and
  // counts it (the hardware's behaviour here is undefined, nanoPU §3.4).
  if (!reported_misuse_ && (e == ApiError::kRxEmpty || e == ApiError::kReadPastEnd)) {
    reported_misuse_ = true;
    NANOPU_LOG(kWarning, "thread %u: read() %s (returns 0; counted, reported once)", id_,
                 e == ApiError::kRxEmpty ? "with an empty RX FIFO" : "past the end of its message");
  }
#endif
  switch (e) {
    case ApiError::kRxEmpty: ++counters_->err_rx_empty; break;
    case ApiError::kReadPastEnd: ++counters_->err_read_past_end; break;
    case ApiError::kBadLength: ++counters_->err_bad_length; break;
    case ApiError::kNoBuffers: ++counters_->err_no_buffers; break;
    case ApiError::kBadHeader: ++counters_->err_bad_header; break;
    case ApiError::kTooLong: ++counters_->err_too_long; break;
    case ApiError::kIncomplete: ++counters_->err_incomplete; break;
    case ApiError::kNoMessage: ++counters_->err_no_message; break;
    default: break;
  }
  return e;
}

void Thread::report_misuse(ApiError e, const char* what) {
  (void)fail(e);
  const uint32_t bit = 1u << static_cast<uint32_t>(e);
  if ((reported_kinds_ & bit) != 0) return;
  reported_kinds_ |= bit;
  NANOPU_LOG(kWarning, "thread %u: %s (%.*s; counted in thread%u.err_*, said once per kind)", id_, what,
             static_cast<int>(api_error_name(e).size()), api_error_name(e).data(), id_);
}

void Thread::on_end() {
  RuntimeScope scope(this);
  (void)drop_incomplete_tx("ended with a message half-written: dropped, not sent");
}

bool Thread::failures_pending() const { return !fifos_->failures.empty(); }

bool Thread::next_failure(TxFailure* f) {
  if (!fifos_->failures.pop(f)) return false;
  ++counters_->tx_failure_notices;
  return true;
}

bool Thread::has_message() {
  if (rx_msg_ != nullptr || rx_next_ != nullptr) return true;
  rx_next_ = fifos_->rx.pop();
  return rx_next_ != nullptr;
}

uint64_t Thread::head_tsc() const {
  if (rx_msg_ != nullptr) return msg_start_tsc_;
  return rx_next_ != nullptr ? entry_nic_tsc(rx_next_) : UINT64_MAX;
}

uint64_t Thread::rx_tsc() const {
  const uint64_t t = head_tsc();
  return t == UINT64_MAX ? 0 : t;
}

double Thread::sender_core_ns() const {
  const rte_mbuf* m = rx_msg_ != nullptr ? rx_msg_ : rx_next_;
  return m == nullptr ? 0 : static_cast<double>(entry_core_time(m)) / 16;
}

uint16_t Thread::rx_run() const {
  const rte_mbuf* m = rx_msg_ != nullptr ? rx_msg_ : rx_next_;
  return m == nullptr ? 0 : entry_run(m);
}

uint32_t Thread::queued() const {
  return fifos_->rx.count() + (rx_next_ != nullptr ? 1 : 0);
}

bool Thread::wait() {
  RuntimeScope scope(this);
  // Stopping ends the loop even with messages waiting: on a shared core the
  // thread's own safe points poll the NIC, so under a load that never lets
  // up it would always have one and run() would never return.
  for (;;) {
    if (worker_->stopping()) return false;
    if (has_work()) break;
    worker_->park(slot_);
  }
  (void)arm(has_message());
  return true;
}

bool Thread::wait_for(std::chrono::nanoseconds timeout) {
  RuntimeScope scope(this);
  // A clock running fast (Config::clock_drift_ppm) ends its timeouts early.
  const uint64_t deadline =
      clock::ticks() + static_cast<uint64_t>(static_cast<double>(timeout.count()) * 1e-9 *
                                             static_cast<double>(clock::hz()) / worker_->clock_rate());
  for (;;) {  // as wait(): stopping first
    if (worker_->stopping()) return false;
    if (has_work()) break;
    if (clock::ticks() >= deadline) return false;
    worker_->park(slot_, deadline);
  }
  (void)arm(has_message());
  return true;
}

bool Thread::stopping() const { return worker_->stopping(); }

bool Thread::is_current() const { return sched::Worker::current() == this; }

uint64_t Thread::now_ns() const {
  return static_cast<uint64_t>(static_cast<double>(clock::ticks()) * clock::ns_per_tick() * worker_->clock_rate());
}

uint64_t Thread::tx_failures() const { return fifos_->tx_failed.load(std::memory_order_relaxed); }
uint64_t Thread::tx_rejections() const { return fifos_->tx_rejected.load(std::memory_order_acquire); }

void Thread::idle() {
  RuntimeScope scope(this);
  worker_->idle(slot_);
}

void Thread::preempt_point() {
  RuntimeScope scope(this);
  worker_->safe_point();
}

void Thread::allow_async_preemption(bool allow) {
  async_preemptible_ = allow;
  if (allow) fifos_->signals->async_enabled.store(true, std::memory_order_relaxed);
}

bool Thread::next_rx_message() {
  rte_mbuf* m = rx_next_ != nullptr ? rx_next_ : fifos_->rx.pop();
  rx_next_ = nullptr;
  if (m == nullptr) return false;
  // The message after it (JBSQ(n) leaves up to n - 1 waiting), taken now and
  // its mbuf and MsgMeta lines fetched while this one is served: the NIC
  // core wrote them, and the first touch of a message was a quarter of the
  // worker core in the rate benchmark (issue 37).
  rx_next_ = fifos_->rx.pop();
  if (rx_next_ != nullptr) {
    rte_prefetch0(inline_of(rx_next_));  // an inline slot's first line, or the mbuf's
    if (!is_inline(rx_next_)) rte_prefetch0(msg_meta(rx_next_));
  }
  rx_msg_ = m;
  if (is_inline(m)) {  // the register path (inline_msg.h): one segment, in the slot
    const InlineMsg* slot = inline_of(m);
    rx_seg_ = m;
    rx_seg_off_ = 0;
    rx_seg_data_ = slot->payload;
    rx_seg_len_ = AppHeader::from_word(slot->app_header).len;
  } else {
    enter_rx_segment(m);
  }
  rx_header_ = entry_app_header(m);
  msg_start_tsc_ = entry_nic_tsc(m);
  const AppHeader h = AppHeader::from_word(rx_header_);
  source_runs_[source_slot(h.ip, h.context)] = {h.ip, h.context, entry_run(m)};
  rx_bytes_left_ = h.len;
  rx_words_left_ = 1 + h.payload_words();
  rx_header_pending_ = true;
  // Counted time (a simulation): taking a message costs its fixed work and
  // half a cycle per word read (the other half when the reply's written).
  clock::charge_cycles(clock::work_costs().msg_fixed_cycles + 0.5 * clock::work_costs().word_cycles * rx_words_left_);
  if (sched::MessageCharge* mc = worker_->message_charge(); mc != nullptr) [[unlikely]]
    clock::charge_ps(mc->ps_at_start(clock::ticks()));
  ++counters_->rx_msgs;
  msg_begin_tsc_ = worker_->on_msg_start(slot_);
  away_at_begin_ = away_tsc_;
  return true;
}

void Thread::enter_rx_segment(rte_mbuf* seg) {
  rx_seg_ = seg;
  rx_seg_off_ = 0;
  rx_seg_data_ = rte_pktmbuf_mtod(seg, const uint8_t*);
  rx_seg_len_ = seg->data_len;
}

ApiError Thread::read(uint64_t* word) {
  RuntimeScope scope(this);
  worker_->safe_point();
  return read_word(word);  // its run is granted as the scope ends
}

void Thread::grant_rx_run() {
  if (rx_msg_ == nullptr || rx_header_pending_ || rx_seg_off_ > rx_seg_len_) return;
  // Full payload words only, inside this packet's segment: a short last
  // word, the next segment and the message's end stay out of line.
  const uint32_t words = std::min({rx_bytes_left_ / 8, (rx_seg_len_ - rx_seg_off_) / 8, kFastWordsPerSafePoint});
  rx_run_granted_ = words;
  rx_run_idx_ = -static_cast<int64_t>(words);
  rx_run_end_ = rx_seg_data_ + rx_seg_off_ + 8 * words;
}

ApiError Thread::read_word(uint64_t* word) {
  *word = 0;
  if (rx_msg_ == nullptr && !next_rx_message()) return fail(ApiError::kRxEmpty);
  if (rx_words_left_ == 0) return fail(ApiError::kReadPastEnd);
  if (rx_header_pending_) {  // first word of the message: its application header
    rx_header_pending_ = false;
    --rx_words_left_;
    *word = rx_header_;
    return ApiError::kOk;
  }
  if (rx_seg_off_ >= rx_seg_len_) enter_rx_segment(rx_seg_->next);
  const uint8_t* p = rx_seg_data_ + rx_seg_off_;
  uint64_t be = 0;
  const uint32_t n = rx_bytes_left_ < 8 ? rx_bytes_left_ : 8;
  std::memcpy(&be, p, n);  // a short last word is zero-padded (docs/wire.md)
  rx_seg_off_ += n;
  rx_bytes_left_ -= n;
  --rx_words_left_;
  *word = rte_be_to_cpu_64(be);
  return ApiError::kOk;
}

void Thread::spend_modelled_cycles(double cycles) {
  // Modelled time moves only between polls: the work is charged a slice
  // at a time and the core given back to the loop after each, so that a
  // message arriving meanwhile preempts it within a slice, as the
  // hardware's scheduler preempts on arrival (nanoPU OSDI'21 §3.3), and a
  // message running past t0 is demoted then (bounded processing time).
  const double cycle_ps = clock::work_costs().cycle_ps;
  if (cycle_ps == 0) return;  // work takes no time (--charge=none)
  RuntimeScope scope(this);
  for (double left = cycles; left > 0;) {
    const double slice = std::min(left, worker_->slice_cycles(kSliceCycles));
    if (slice == left && slice <= kSliceCycles) {  // short work: charged whole, the core kept
      clock::charge_cycles(slice);
      return;
    }
    const uint64_t from = clock::ticks();
    clock::charge_cycles(slice);
    const uint64_t planned_end = clock::ticks();
    worker_->yield_for_time(from);
    // Back at the slice's end, or earlier if the loop cut it short: only
    // the time that passed was spent.
    const uint64_t at = clock::ticks();
    left -= at >= planned_end ? slice : static_cast<double>(at - from) / cycle_ps;
  }
}

void Thread::compute(uint64_t cycles) {
  constexpr double kModelledCoreGhz = 3.2;  // the nanoPU's core clock (nanoPU OSDI'21 §5)
  if (clock::is_virtual()) {
    spend_modelled_cycles(static_cast<double>(cycles));
    return;
  }
  const uint64_t end = clock::ticks() + static_cast<uint64_t>(static_cast<double>(cycles) / kModelledCoreGhz /
                                                                 clock::ns_per_tick());
  while (clock::ticks() < end) rte_pause();
}

void Thread::charge_work(double cycles) {
  // Live, the code took its own time; measured time (--charge=measured)
  // times the code itself, so the declaration would count it twice.
  if (!clock::is_virtual() || measure_app_ || !(cycles > 0)) return;
  spend_modelled_cycles(cycles);
}

void Thread::msg_done() {
  RuntimeScope scope(this);
  (void)drop_incomplete_tx("msg_done() with a message half-written: dropped, not sent");
  // With no message started, the one wait() or msgs_ready() reported is the
  // current one (the hardware's view): it is flushed whole. With none
  // reported either, there is nothing to finish: taking the next one would
  // drop it unread.
  if (rx_msg_ == nullptr && !rx_armed_) {
    report_misuse(ApiError::kNoMessage, "msg_done() with no message being read: nothing flushed");
    return;
  }
  rx_armed_ = false;
  if (rx_msg_ == nullptr && !next_rx_message()) return;
  counters_->rx_words_flushed += rx_words_left_;
  // The next message's first payload line (its mbuf line, prefetched when
  // this one began, says where the data is). NEBULA (ISCA'20) §V-E fetches
  // the whole payload; here, where the NIC core and the worker share a CPU,
  // that measured no gain (nanopu-bench-e2e scaling, 512 B and 1 KB) and
  // ~4 ns more a message read (nanopu-bench-thread-api), so one line.
  if (rx_next_ != nullptr)
    rte_prefetch0(is_inline(rx_next_) ? static_cast<const void*>(inline_of(rx_next_)->payload + 40)
                                      : rte_pktmbuf_mtod(rx_next_, const void*));
  free_fifo_entry(rx_msg_);
  rx_msg_ = rx_seg_ = nullptr;
  rx_words_left_ = rx_bytes_left_ = 0;
  // Return the JBSQ credit (nanoPU §3.2); we are the only writer. In a
  // simulation the NIC sees it at this core's time, after the work charged.
  if (clock::is_virtual()) [[unlikely]] {
    // Prune what the NIC sees already (its time: the instant's, not this
    // core's, which is ahead by what it was charged).
    const uint64_t seen = clock::instant_ticks();
    while (!fifos_->done_at.empty() && fifos_->done_at.front() <= seen) fifos_->done_at.pop_front();
    fifos_->done_at.push_back(clock::ticks());
  }
  fifos_->done.store(fifos_->done.load(std::memory_order_relaxed) + 1, std::memory_order_release);
  worker_->on_msg_done(slot_);
}

}  // namespace nanopu
