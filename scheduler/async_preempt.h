// Asynchronous preemption: a signal the NIC core sends to a worker whose
// running thread has not reached a safe point in time (DESIGN §4). The
// handler switches fibers only when the interrupted thread opted in
// (Thread::allow_async_preemption) and is in its own code, not nanopu's.
//
// Why opt-in: switching away from arbitrary code is only safe if that code
// holds no lock another thread on the core may take and is not inside a
// non-reentrant library (malloc, stdio, a DPDK mempool cache). Safe points
// (every API call, and nanopu::preempt_point() for long loops) have no such
// hazard and are the main path; this is the fallback, and its latency is
// measured in bench/ rather than assumed.
#pragma once

#include <pthread.h>

#include <csignal>

namespace nanopu::sched {

inline constexpr int kPreemptSignal = SIGURG;  // ignored by default, unused by DPDK

// Installs the process-wide handler (idempotent).
void install_preempt_handler();
// Unblocks kPreemptSignal for the calling OS thread (async-signal-safe).
void unblock_preempt_signal();
// Asks `thread` to preempt; false if it could not be signalled.
bool send_preempt_signal(pthread_t thread);

}  // namespace nanopu::sched
