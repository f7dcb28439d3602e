#include "scheduler/worker.h"
#include "lib/base/log.h"

#include <rte_pause.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <exception>
#include <utility>

#include "absl/strings/str_cat.h"
#include "lib/contract/clock.h"
#include "nanopu/stats.h"
#include "scheduler/async_preempt.h"

namespace nanopu::sched {
namespace {
thread_local Worker* tls_worker = nullptr;
thread_local Thread* tls_current = nullptr;
}  // namespace

Worker::Worker(uint32_t index, const WorkerParams& params, const std::atomic<bool>* stop)
    : index_(index), params_(params), policy_(params.hts), stop_(stop), last_tick_(clock::ticks()) {
  slots_.reserve(params.max_threads);
  states_.reserve(params.max_threads);
}

Worker::~Worker() {
  for (Slot& s : slots_) {
    // A fiber switched out from inside a signal handler has a signal frame on
    // its stack that must not be unwound (docs/design.md §4): leave it parked.
    if (s.parked_in_handler) (void)s.fiber.release();
    s.fiber.reset();  // cancels (unwinds) fibers still suspended
  }
}

Thread* Worker::current() { return tls_current; }

void Worker::attach_os_thread() {
  signals_.os_thread = pthread_self();
  tls_worker = this;
}

void Worker::detach_os_thread() {
  tls_worker = nullptr;
  std::atomic_signal_fence(std::memory_order_seq_cst);  // seen by this thread's handler
}

absl::StatusOr<Thread*> Worker::add_thread(uint32_t id, ThreadFifos* fifos, rte_mempool* pool,
                                           ContextTable* contexts, uint32_t max_message_bytes,
                                           ThreadBody body) {
  if (slots_.size() >= params_.max_threads)
    return absl::ResourceExhaustedError(absl::StrCat(
        "worker ", index_, " already runs ", params_.max_threads,
        " threads; raise --max_threads_per_core or add a worker lcore"));
  fifos->worker = index_;
  fifos->signals = &signals_;
  const size_t slot_index = slots_.size();
  Slot& slot = slots_.emplace_back();
  states_.emplace_back();
  states_.back().present = true;
  states_.back().runnable = true;
  slot.thread.reset(new Thread(id, slot_index, fifos, pool, contexts, this, max_message_bytes));
  Thread* t = slot.thread.get();
  slot.fiber = std::make_unique<Fiber>([this, t, body = std::move(body)] {
    fiber_running_ = true;  // first instructions of a new thread
    try {
      body(*t);
      t->on_end();
    } catch (const FiberCancelled&) {
      fiber_running_ = false;
      throw;  // shutdown unwinding a parked thread: let the fiber finish it
    } catch (const std::exception& e) {
      NANOPU_LOG(kError, "thread %u ended by exception: %s", t->id(), e.what());
    } catch (...) {
      NANOPU_LOG(kError, "thread %u ended by an unknown exception", t->id());
    }
    fiber_running_ = false;  // the rest is the fiber's exit back to run_once()
  });
  return t;
}

void Worker::refresh(size_t i) {
  ThreadState& st = states_[i];
  const Slot& s = slots_[i];
  st.present = s.state != SlotState::kFinished;
  if (!st.present) return;
  st.has_msg = s.thread->has_work();
  if (st.has_msg) {
    st.head_ts = s.thread->head_tsc();
    st.idle_since = 0;
  }
  st.runnable = s.state != SlotState::kWaiting || stopping() ||
                (s.wake_tsc != 0 && clock::ticks() >= s.wake_tsc);
  st.priority = s.thread->priority();
}

void Worker::refresh_all() {
  for (size_t i = 0; i < slots_.size(); ++i) refresh(i);
}

void Worker::publish_running() {
  if (running_ == HtsPolicy::kNone) {
    store_if_changed(signals_.running_priority, kNothingRunning);
    store_if_changed(signals_.deadline_tsc, uint64_t{UINT64_MAX});
    return;
  }
  const ThreadState& r = states_[static_cast<size_t>(running_)];
  store_if_changed(signals_.running_priority, HtsPolicy::effective_priority(r));
  store_if_changed(signals_.deadline_tsc, policy_.time_deadline(r));
}

void Worker::poll_shared_nic(uint64_t now) {
  last_nic_poll_ = now;
  params_.shared_nic();
  // The NIC's work ran on this thread's stack, not on its message.
  if (running_ != HtsPolicy::kNone) slots_[static_cast<size_t>(running_)].thread->away_tsc_ += clock::ticks() - now;
}

bool Worker::any_runnable() const {
  for (const ThreadState& st : states_)
    if (st.present && st.runnable) return true;
  return false;
}

bool Worker::settled() const {
  if (hold_ != HtsPolicy::kNone || stopping() || clock::is_virtual()) return false;
  for (size_t i = 0; i < states_.size(); ++i) {
    const ThreadState& st = states_[i];
    if (st.present && (st.runnable || st.has_msg || slots_[i].wake_tsc != 0)) return false;
  }
  return true;
}

bool Worker::run_once() {
  tls_worker = this;
  quiet_ = false;
  bool ran = false;
  // Run threads until none can: each resume returns when the thread parks,
  // yields, is preempted or ends.
  for (size_t guard = 0; guard < 4 * slots_.size() + 1; ++guard) {
    refresh_all();
    int next = HtsPolicy::kNone;
    if (hold_ != HtsPolicy::kNone) {  // TIS in virtual time: the core is this thread's until then
      const bool ready = stopping() || clock::ticks() >= hold_until_ ||
                         (hold_for_message_ && slots_[static_cast<size_t>(hold_)].thread->has_work());
      if (!ready) break;
      next = std::exchange(hold_, HtsPolicy::kNone);
    } else if (next = policy_.best_active(states_.data(), states_.size());
               next == HtsPolicy::kNone && any_runnable()) {
      // No message waits: pick_idle() (which needs the clock for the idle
      // timeout) only if some thread can run without one. An idle core
      // (every thread parked in wait()) reads no clock here (refresh()
      // still reads it for a thread in wait_for()): a TSC read costs ~10 ns
      // on this VM, and a shared core's idle loop is what a packet waits
      // for (nanopu-bench-e2e rtt).
      next = policy_.pick_idle(states_.data(), states_.size(), last_, clock::ticks());
    }
    if (next == HtsPolicy::kNone) {
      quiet_ = settled();
      break;
    }
    Slot& s = slots_[static_cast<size_t>(next)];
    running_ = next;
    s.state = SlotState::kRunning;
    s.parked_in_handler = false;
    states_[static_cast<size_t>(next)].idle_since = 0;  // (d) times the idling of the running thread
    store_if_changed(signals_.preempt, 0u);
    publish_running();
    tls_current = s.thread.get();
    // Counted time (a simulation): another thread's state onto the core.
    if (last_ != HtsPolicy::kNone && next != last_) clock::charge_cycles(clock::work_costs().context_switch_cycles);
    // One clock read for the resume: when the core became busy, when a
    // shared NIC was last polled (just before this run_once) and when the
    // thread, if it was switched out, came back (switch_out).
    // On a shared core the NIC's poll read the clock just before this turn
    // (its receive half): that read, not one more.
    resumed_tsc_ = params_.shared_nic.present() ? clock::last_read() : clock::ticks();
    signals_.busy_since_tsc.store(resumed_tsc_, std::memory_order_relaxed);
    if (params_.shared_nic.present()) last_nic_poll_ = resumed_tsc_;
    ++stats_.switches;
    slice_from_ = UINT64_MAX;  // until the thread yields for time again
    s.fiber->resume();
    signals_.busy_since_tsc.store(0, std::memory_order_relaxed);
    tls_current = nullptr;
    last_ = next;
    running_ = HtsPolicy::kNone;
    publish_running();
    if (s.fiber->finished()) {
      s.state = SlotState::kFinished;
      s.thread->unbind();
    }
    ran = true;
    // Single-lcore mode: the NIC must run between threads too. A thread
    // that gave the core back for modelled time to pass (yield_for_time)
    // ends the poll too: the loop moves the clock before it runs again.
    if (params_.shared_nic.present() || std::exchange(time_yield_, false)) break;
  }
  return ran;
}

void Worker::sleep_until_work(uint32_t timeout_us) {
  signals_.sleeping.store(1, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_seq_cst);  // then look at the FIFOs
  refresh_all();
  if (stopping() || policy_.pick(states_.data(), states_.size(), last_, clock::ticks()) != HtsPolicy::kNone) {
    signals_.sleeping.store(0, std::memory_order_relaxed);
    return;
  }
  // A thread in wait_for() wakes at its deadline, not a whole step later.
  const uint64_t now = clock::ticks();
  for (const Slot& sl : slots_)
    if (sl.state == SlotState::kWaiting && sl.wake_tsc > now)
      timeout_us = static_cast<uint32_t>(std::min<double>(
          timeout_us, static_cast<double>(sl.wake_tsc - now) * 1e6 / static_cast<double>(clock::hz()) + 1));
  ++stats_.sleeps;
  futex_wait(&signals_.sleeping, 1, timeout_us);
  signals_.sleeping.store(0, std::memory_order_relaxed);
}

bool Worker::all_finished() const {
  return std::all_of(slots_.begin(), slots_.end(),
                     [](const Slot& s) { return s.state == SlotState::kFinished; });
}

void Worker::switch_out(SlotState new_state, uint64_t out) {
  Slot& s = slots_[static_cast<size_t>(running_)];
  s.state = new_state;
  fiber_running_ = false;
  Thread* t = s.thread.get();  // s may move while we are out (slots_ grows)
  if (out == kReadClock) out = clock::ticks();
  s.fiber->suspend();
  t->away_tsc_ += resumed_tsc_ - out;  // not on-core time of its message (run_once read the clock)
  fiber_running_ = true;  // resumed by run_once(), which republished our state
}

void Worker::slow_safe_point() {
  countdown_ = kClockCheckEvery;
  if (running_ == HtsPolicy::kNone) return;
  const uint64_t now = clock::ticks();
  if (params_.shared_nic.present() && now - last_nic_poll_ >= params_.shared_nic_period_tsc)
    poll_shared_nic(now);
  const bool raised = signals_.preempt.load(std::memory_order_relaxed) != 0;
  const bool deadline = now >= signals_.deadline_tsc.load(std::memory_order_relaxed);
  uint64_t tick = 0;
  const bool tis = policy_.params().mode == SchedMode::kTis && policy_.tis_tick_due(last_tick_, now, &tick);
  if (raised || deadline || tis) decide(false, now);
}

void Worker::decide(bool at_msg_done, uint64_t now) {
  store_if_changed(signals_.preempt, 0u);
  if (policy_.params().mode == SchedMode::kTis) {
    uint64_t tick = 0;
    if (!policy_.tis_tick_due(last_tick_, now, &tick)) return;  // TIS: only on ticks
    last_tick_ = tick;
  }
  // At msg_done a lone thread has nothing to switch to, so its state (an RX
  // FIFO look among it) is not re-read for a choice that cannot change
  // (issue 37 item 1's fast path). The t0 bound's demotion and what the NIC
  // reads still follow; elsewhere (idle(), a time slice) the refresh stays.
  if (slots_.size() > 1 || !at_msg_done) refresh_all();
  ThreadState& r = states_[static_cast<size_t>(running_)];
  const bool was_demoted = r.demoted;
  const bool sw = policy_.should_switch(states_.data(), states_.size(), running_, now, at_msg_done);
  if (r.demoted && !was_demoted) ++stats_.demotions;
  publish_running();
  if (!sw) return;
  if (r.has_msg) ++stats_.preemptions;
  else if (policy_.best_active(states_.data(), states_.size(), running_) == HtsPolicy::kNone)
    ++stats_.idle_rotations;
  switch_out(SlotState::kRunnable);  // `now` may predate a shared NIC poll (slow_safe_point)
}

void Worker::park(size_t slot, uint64_t wake_tsc) {
  ThreadState& st = states_[slot];
  // Also when it left the core (switch_out). Read, not the thread's last
  // read: it may have computed since its reply's end (or consumed a
  // message with no reply, which reads no clock), and this read is the one
  // a shared core's NIC takes next (poll_finish, clock::last_read).
  uint64_t now = clock::ticks();
  if (st.idle_since == 0) st.idle_since = now;
  if (policy_.params().mode == SchedMode::kTis) {
    // TIS: the core stays with this thread (it polls, like lnic_wait) until
    // its own message arrives or the next tick lets the scheduler choose.
    uint64_t tick = 0;
    for (;;) {
      const uint64_t t = clock::ticks();
      if (params_.shared_nic.present()) poll_shared_nic(t);
      if (slots_[slot].thread->has_work() || stopping()) return;
      if (policy_.tis_tick_due(last_tick_, t, &tick)) break;
      if (clock::is_virtual()) {
        hold(slot, next_tis_tick(t), /*for_message=*/true);
        continue;
      }
      rte_pause();
    }
    last_tick_ = tick;
    now = clock::ticks();
  }
  slots_[slot].wake_tsc = wake_tsc;
  switch_out(SlotState::kWaiting, now);
  slots_[slot].wake_tsc = 0;
}

void Worker::hold(size_t slot, uint64_t until, bool for_message) {
  hold_ = static_cast<int>(slot);
  hold_until_ = until;
  hold_for_message_ = for_message;
  time_yield_ = true;
  switch_out(SlotState::kRunnable);
}

uint64_t Worker::next_tis_tick(uint64_t now) const {
  const uint64_t period = policy_.params().tis_period;
  return last_tick_ + ((now - last_tick_) / period + 1) * period;
}

uint64_t Worker::next_wake_tsc() const {
  uint64_t next = hold_ != HtsPolicy::kNone ? hold_until_ : UINT64_MAX;
  for (const Slot& sl : slots_)
    if (sl.state == SlotState::kWaiting && sl.wake_tsc != 0) next = std::min(next, sl.wake_tsc);
  return next;
}

double Worker::slice_cycles(double min_cycles) const {
  const uint64_t now = clock::ticks();
  // The running thread's t0 deadline or idle rotation, another thread's
  // wait_for() deadline, the next TIS tick: each a decision the core makes
  // on its own. A slice ends a picosecond before it, so the decision is
  // taken in the slice after, at its time (never early, if the slice is
  // cut short).
  uint64_t until = std::min(signals_.deadline_tsc.load(std::memory_order_relaxed), next_wake_tsc());
  if (running_ != HtsPolicy::kNone) {
    const ThreadState& r = states_[static_cast<size_t>(running_)];
    if (!r.has_msg && r.idle_since != 0) until = std::min(until, r.idle_since + policy_.params().idle_timeout);
  }
  if (policy_.params().mode == SchedMode::kTis) until = std::min(until, next_tis_tick(now));
  // At most a modelled millisecond: a spin nothing ends still moves the clock.
  until = std::min(until, now + clock::kVirtualHz / 1000);
  const double cycle_ps = clock::work_costs().cycle_ps;
  if (until <= now + 1 || !(cycle_ps > 0)) return min_cycles;
  return std::max(min_cycles, static_cast<double>(until - 1 - now) / cycle_ps);
}

void Worker::yield_for_time(uint64_t slice_from) {
  const uint64_t now = clock::ticks();
  slice_from_ = slice_from;  // the loop may end the slice early from then on (slice_from_ticks)
  if (policy_.params().mode == SchedMode::kTis) {
    uint64_t tick = 0;
    if (!policy_.tis_tick_due(last_tick_, now, &tick)) {  // TIS: the core stays with it until a tick
      hold(static_cast<size_t>(running_), now, /*for_message=*/false);
      return;
    }
    last_tick_ = tick;
  }
  refresh_all();
  ThreadState& r = states_[static_cast<size_t>(running_)];
  const bool was_demoted = r.demoted;
  if (policy_.should_switch(states_.data(), states_.size(), running_, now, false)) ++stats_.preemptions;
  if (r.demoted && !was_demoted) ++stats_.demotions;
  time_yield_ = true;                // run_once() returns: the clock moves
  switch_out(SlotState::kRunnable);  // the next poll picks (HtsPolicy::pick): this thread, or a better one
}

void Worker::idle(size_t slot) {
  ThreadState& st = states_[slot];
  const uint64_t now = clock::ticks();
  if (!slots_[slot].thread->has_message() && st.idle_since == 0) st.idle_since = now;
  // Single-lcore mode: give the core back to the loop (NIC, other hosts
  // driven by the same thread in tests); the policy picks again there.
  if (params_.shared_nic.present()) {
    switch_out(SlotState::kRunnable, now);
    return;
  }
  // A modelled clock: the loop, too. A thread alone on its core would
  // otherwise go on at once, inside one poll, and one that idles until
  // something arrives would never let the NIC core deliver it (or, in a
  // loop that waits for nothing, never let the simulation see it spin:
  // SimLoop stops a clock that only crawls, saying so).
  if (clock::is_virtual()) [[unlikely]] {
    time_yield_ = true;
    switch_out(SlotState::kRunnable, now);
    return;
  }
  decide(false, now);
}

uint64_t Worker::on_msg_start(size_t slot) {
  const uint64_t now = clock::ticks();
  HtsPolicy::on_msg_start(states_[slot], now);
  signals_.busy_since_tsc.store(now, std::memory_order_relaxed);
  publish_running();
  return now;
}

void Worker::on_msg_done(size_t slot) {
  // nanoPU tail-latency version §2.4: lmsgdone resets the message timer (a demoted thread stays
  // demoted unless --demotion=until_done, see hts_policy.h).
  policy_.on_msg_done(states_[slot]);
  if (slots_.size() == 1 && policy_.params().mode != SchedMode::kTis) {
    // A lone thread has nothing to switch to, whatever the time
    // (should_switch() with no other thread), so no clock is read: a TSC
    // read costs ~10 ns on this VM, on every message (issue 37 item 4).
    // Its busy_since_tsc stays at the message's start until the next one
    // begins (the watchdog's episode, core_signals.h).
    store_if_changed(signals_.preempt, 0u);
    publish_running();
    return;
  }
  // One clock read for both (see above).
  const uint64_t now = clock::ticks();
  signals_.busy_since_tsc.store(now, std::memory_order_relaxed);
  decide(/*at_msg_done=*/true, now);
}

void Worker::on_bound(size_t slot) { states_[slot].priority = slots_[slot].thread->priority(); }

void Worker::on_async_signal() {
  Worker* w = tls_worker;
  if (w == nullptr || w->running_ == HtsPolicy::kNone) return;
  Slot& s = w->slots_[static_cast<size_t>(w->running_)];
  // Only a fiber may be switched out: the signal can also land on the
  // scheduler's own stack (run_once() between two fibers, with running_
  // still set) or inside a switch, where suspending would jump through a
  // context that is not ours.
  if (!w->fiber_running_ || s.thread->in_runtime() || !s.thread->async_preemptible()) {
    ++w->stats_.async_deferred;  // the preempt word stays raised for the next safe point
    return;
  }
  const uint64_t now = clock::ticks();
  store_if_changed(w->signals_.preempt, 0u);
  w->refresh_all();
  if (!w->policy_.should_switch(w->states_.data(), w->states_.size(), w->running_, now, false)) {
    w->publish_running();
    return;
  }
  ++w->stats_.async_preemptions;
  unblock_preempt_signal();  // other fibers must stay interruptible while this one is parked
  s.parked_in_handler = true;
  w->switch_out(SlotState::kRunnable);
}

}  // namespace nanopu::sched
