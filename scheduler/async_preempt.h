// Asynchronous preemption: a signal the NIC core sends to a worker whose
// running thread has not reached a safe point in time (docs/design.md, "Scheduler"). The
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

#include "lib/contract/core_signals.h"  // kPreemptSignal, sent by CoreSignals::kick()

namespace nanopu::sched {

// Installs the process-wide handler (idempotent).
void install_preempt_handler();
// Unblocks kPreemptSignal for the calling OS thread (async-signal-safe).
void unblock_preempt_signal();

}  // namespace nanopu::sched
