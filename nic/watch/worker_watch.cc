#include "nic/watch/worker_watch.h"

#include <algorithm>

#include "lib/base/log.h"

namespace nanopu {

void WorkerWatch::check_async_preemption(uint64_t now, const std::vector<CoreSignals*>& workers,
                                         NicCounters* counters) {
  if (kicks_.size() != workers.size()) kicks_.assign(workers.size(), Kick{});
  for (size_t i = 0; i < workers.size(); ++i) {
    CoreSignals* s = workers[i];
    if (!s->async_enabled.load(std::memory_order_relaxed)) continue;
    // The episode: a raised preempt word, or the running thread's t0 deadline.
    uint64_t since = UINT64_MAX;
    if (s->preempt.load(std::memory_order_relaxed) != 0)
      since = s->preempt_raised_tsc.load(std::memory_order_relaxed);
    const uint64_t deadline = s->deadline_tsc.load(std::memory_order_relaxed);
    if (deadline < since) since = deadline;
    if (since == UINT64_MAX || now < since || now - since < async_after_) continue;
    // A signal that lands in nanopu's own code is left to the next safe
    // point, which code that never calls the API does not reach: signal the
    // episode again, waiting twice as long each time (up to a millisecond),
    // so a stuck thread is always preempted and never flooded.
    Kick& k = kicks_[i];
    if (k.episode == since && now - k.sent_tsc < k.retry_tsc) continue;
    k.retry_tsc = k.episode == since ? std::min<uint64_t>(2 * k.retry_tsc, tsc_hz_ / 1000) : async_after_;
    k.episode = since;
    k.sent_tsc = now;
    if (s->kick()) ++counters->async_preempt_signals;
  }
}

void WorkerWatch::check_watchdog(uint64_t now, const std::vector<CoreSignals*>& workers,
                                 NicCounters* counters) {
  next_watchdog_ = now + watchdog_ / 16 + 1;
  if (flagged_.size() != workers.size()) flagged_.assign(workers.size(), 0);
  for (size_t i = 0; i < workers.size(); ++i) {
    const uint64_t since = workers[i]->busy_since_tsc.load(std::memory_order_relaxed);
    if (since == 0 || now < since || now - since < watchdog_) continue;
    if (flagged_[i] == since) continue;  // this episode is counted
    flagged_[i] = since;
    ++counters->watchdog_stuck;
    // Rare and worth a line: a thread holds its core without msg_done.
    NANOPU_LOG(kWarning,
               "watchdog: worker core %zu has been on one message (a lone thread: since its "
               "last began) for over %.0f ms without msg_done",
               i, static_cast<double>(watchdog_) * 1e3 / static_cast<double>(tsc_hz_));
  }
}

}  // namespace nanopu
