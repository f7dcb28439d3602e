// What each lcore a Runtime launches runs (docs/design.md, "Processes and
// cores"): a worker core on an lcore of its own, a NIC core after the first
// on an lcore of its own, or a NIC core and a worker core taking turns on
// one lcore (several NIC cores, each sharing its lcore). rte_eal_remote_launch
// takes a plain function and a pointer: one struct per kind.
#pragma once

#include <rte_launch.h>
#include <rte_pause.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "lib/base/stall_probe.h"
#include "nic/nic_core.h"
#include "scheduler/worker.h"

namespace nanopu {

struct WorkerLaunch {
  sched::Worker* worker;
  std::atomic<bool>* stop;
  uint64_t idle_spin_tsc = 0;        // adaptive polling: spin this long, then sleep (0: busy)
  StallProbe* probe = nullptr;       // its idle turns watched for the host's stalls (host_noise_watch.h)
  std::atomic<bool> started{false};  // its threads have run once (bound their contexts)
  std::atomic<bool> finished{false};
};
int worker_main(void* arg);  // a WorkerLaunch

// A NIC core after the first, on an lcore of its own: polls from `go` (the
// threads have bound their contexts: earlier frames would find none) until
// `stop`.
struct NicLaunch {
  NicCore* nic = nullptr;
  std::atomic<bool> go{false};
  std::atomic<bool> stop{false};
  // Set last: the launcher may free this then (rte_eal_wait_lcore's own
  // synchronisation is invisible to ThreadSanitizer).
  std::atomic<bool> exited{false};
};
int nic_main(void* arg);  // a NicLaunch

// A NIC core after the first and its worker core, taking turns on one lcore
// as a single-lcore host's do: the worker's threads run between the NIC's
// receive and its send. From `go` until the host stops (`host_stop`); then
// the threads see the stop (`finished`), and the NIC core keeps polling —
// its peers' traffic is every thread's — until `stop`.
struct SharedLaunch : NicLaunch {
  sched::Worker* worker = nullptr;
  std::atomic<bool>* host_stop = nullptr;
  std::atomic<bool> started{false};       // its threads have run once (bound their contexts)
  std::atomic<bool> threads_done{false};  // every thread of its worker has returned
  std::atomic<bool> finished{false};
};
int shared_main(void* arg);  // a SharedLaunch

// Tells each launched NIC core to stop and waits until it has: launches[k]
// runs on lcores[k + 1].
template <typename Launch>
void end_launches(const std::vector<std::unique_ptr<Launch>>& launches,
                  const std::vector<unsigned>& lcores) {
  for (const auto& l : launches) l->stop.store(true, std::memory_order_relaxed);
  for (size_t k = 0; k < launches.size(); ++k) {
    (void)rte_eal_wait_lcore(lcores[k + 1]);
    while (!launches[k]->exited.load(std::memory_order_acquire)) rte_pause();
  }
}

// One turn of a NIC core and the worker sharing its lcore; work done.
unsigned shared_turn(NicCore& nic, sched::Worker& worker);

}  // namespace nanopu
