// What each lcore a Runtime launches runs (docs/design.md, "Processes and
// cores"): a worker core on an lcore of its own, a NIC core after the first
// on an lcore of its own, or a NIC core and a worker core taking turns on
// one lcore (several NIC cores, each sharing its lcore). rte_eal_remote_launch
// takes a plain function and a pointer: one struct per kind.
#pragma once

#include <atomic>
#include <cstdint>

#include "nic/nic_core.h"
#include "scheduler/worker.h"

namespace nanopu {

struct WorkerLaunch {
  sched::Worker* worker;
  std::atomic<bool>* stop;
  uint64_t idle_spin_tsc = 0;        // adaptive polling: spin this long, then sleep (0: busy)
  std::atomic<bool> started{false};  // its threads have run once (bound their contexts)
  std::atomic<bool> finished{false};
};
int worker_main(void* arg);  // a WorkerLaunch

// A NIC core after the first, on an lcore of its own: polls until told to stop.
struct NicLaunch {
  NicCore* nic;
  std::atomic<bool> stop{false};
  // Set last: the launcher may free this then (rte_eal_wait_lcore's own
  // synchronisation is invisible to ThreadSanitizer).
  std::atomic<bool> exited{false};
};
int nic_main(void* arg);  // a NicLaunch

// A NIC core after the first and its worker core, taking turns on one lcore
// as a single-lcore host's do: the worker's threads run between the NIC's
// receive and its send. Until the host stops (`host_stop`); then the
// threads see the stop (`finished`), and the NIC core keeps polling — its
// peers' traffic is every thread's — until `nic_stop`.
struct SharedLaunch {
  NicCore* nic;
  sched::Worker* worker;
  std::atomic<bool>* host_stop;
  std::atomic<bool> started{false};
  std::atomic<bool> finished{false};
  std::atomic<bool> nic_stop{false};
  std::atomic<bool> exited{false};  // as NicLaunch's
};
int shared_main(void* arg);  // a SharedLaunch

// One turn of a NIC core and the worker sharing its lcore; work done.
unsigned shared_turn(NicCore& nic, sched::Worker& worker);

}  // namespace nanopu
