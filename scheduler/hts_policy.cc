#include "scheduler/hts_policy.h"

namespace nanopu::sched {

bool HtsPolicy::better(const ThreadState& a, const ThreadState& b) {
  const uint8_t pa = effective_priority(a), pb = effective_priority(b);
  if (pa != pb) return pa < pb;
  return a.head_ts < b.head_ts;  // FIFO among equal priorities
}

int HtsPolicy::best_active(const ThreadState* ts, size_t n, int except) const {
  int best = kNone;
  for (size_t i = 0; i < n; ++i) {
    if (static_cast<int>(i) == except || !ts[i].present || !ts[i].has_msg) continue;
    if (best == kNone || better(ts[i], ts[best])) best = static_cast<int>(i);
  }
  return best;
}

int HtsPolicy::pick(const ThreadState* ts, size_t n, int last, uint64_t now) const {
  const int active = best_active(ts, n);
  return active != kNone ? active : pick_idle(ts, n, last, now);
}

int HtsPolicy::pick_idle(const ThreadState* ts, size_t n, int last, uint64_t now) const {
  if (last >= 0 && static_cast<size_t>(last) < n && ts[last].present && ts[last].runnable &&
      (ts[last].idle_since == 0 || now - ts[last].idle_since <= p_.idle_timeout))
    return last;
  // Nothing active: rotate through threads that can run without a message.
  for (size_t k = 1; k <= n; ++k) {
    const size_t i = (static_cast<size_t>(last < 0 ? -1 : last) + k) % n;
    if (ts[i].present && ts[i].runnable) return static_cast<int>(i);
  }
  return kNone;
}

bool HtsPolicy::should_switch(ThreadState* ts, size_t n, int running, uint64_t now,
                              bool at_msg_done) const {
  ThreadState& r = ts[running];
  // (c) bounded message-processing time: demote, then compare as priority 1.
  if (p_.mode == SchedMode::kHts && p_.bounded && r.in_msg && r.priority == 0 && !r.demoted &&
      now - r.msg_start > p_.t0)
    r.demoted = true;
  const int other = best_active(ts, n, running);
  if (!r.has_msg) {
    if (other != kNone) return true;  // (b) idle, someone else has work
    // (d) nobody active: rotate once the idle timeout has passed.
    if (r.idle_since != 0 && now - r.idle_since > p_.idle_timeout) {
      for (size_t i = 0; i < n; ++i)
        if (static_cast<int>(i) != running && ts[i].present && ts[i].runnable) return true;
    }
    return false;
  }
  if (other == kNone) return false;
  // (a) strictly better priority preempts; at msg_done FIFO order among equals.
  if (effective_priority(ts[other]) < effective_priority(r)) return true;
  return at_msg_done && better(ts[other], r);
}

bool HtsPolicy::tis_tick_due(uint64_t last_tick, uint64_t now, uint64_t* tick) const {
  if (now - last_tick < p_.tis_period) return false;
  *tick = now - (now - last_tick) % p_.tis_period;
  return true;
}

uint64_t HtsPolicy::time_deadline(const ThreadState& r) const {
  if (p_.mode != SchedMode::kHts || !p_.bounded || !r.in_msg || r.priority != 0 || r.demoted)
    return UINT64_MAX;
  return r.msg_start + p_.t0;
}

}  // namespace nanopu::sched
