#include "runtime/host/lcore_loops.h"

#include <rte_pause.h>

#include "lib/contract/clock.h"
#include "scheduler/async_preempt.h"

namespace nanopu {
namespace {

// Adaptive polling: a sleeping worker looks at the world this often even
// when nothing wakes it (a stop() from another thread, say).
constexpr uint32_t kWorkerSleepUs = 10000;

}  // namespace

int nic_main(void* arg) {
  auto* l = static_cast<NicLaunch*>(arg);
  while (!l->go.load(std::memory_order_acquire) && !l->stop.load(std::memory_order_relaxed))
    rte_pause();
  while (!l->stop.load(std::memory_order_relaxed)) l->nic->poll();
  l->exited.store(true, std::memory_order_release);
  return 0;
}

int worker_main(void* arg) {
  auto* l = static_cast<WorkerLaunch*>(arg);
  l->worker->attach_os_thread();
  sched::install_preempt_handler();
  sched::unblock_preempt_signal();
  l->worker->run_once();  // threads bind their contexts in their first instructions
  l->started.store(true, std::memory_order_release);
  // The idle turns are watched for the host's stalls; the gap after a turn
  // that ran a thread (the application's own time) or slept is not, and a
  // busy turn reads no clock for it.
  StallProbe unwatched;
  StallProbe& probe = l->probe != nullptr ? *l->probe : unwatched;
  bool watching = false;  // the last turn was an idle one
  uint64_t idle_since = 0;
  while (!l->stop->load(std::memory_order_relaxed)) {
    if (l->worker->run_once()) {
      idle_since = 0;
      watching = false;
    } else {
      const uint64_t now = clock::ticks();
      if (watching) probe.turn(now);
      else probe.resume(now);
      watching = true;
      if (l->idle_spin_tsc == 0) {
        rte_pause();
      } else if (idle_since == 0) {
        idle_since = now;
      } else if (now - idle_since >= l->idle_spin_tsc) {
        l->worker->sleep_until_work(kWorkerSleepUs);
        idle_since = 0;
        watching = false;
      } else {
        rte_pause();
      }
    }
    if (l->worker->all_finished()) break;
  }
  l->worker->run_once();  // let threads parked in wait() see the stop and return
  sched::Worker::detach_os_thread();
  l->finished.store(true, std::memory_order_release);
  return 0;
}

unsigned shared_turn(NicCore& nic, sched::Worker& worker) {
  unsigned work = nic.poll_receive();
  const bool ran = worker.run_once();
  return work + nic.poll_finish(work, /*fresh_clock=*/ran) + (ran ? 1 : 0);
}

int shared_main(void* arg) {
  auto* l = static_cast<SharedLaunch*>(arg);
  l->worker->attach_os_thread();
  l->worker->run_once();  // threads bind their contexts in their first instructions
  l->started.store(true, std::memory_order_release);
  while (!l->go.load(std::memory_order_acquire) && !l->host_stop->load(std::memory_order_relaxed))
    rte_pause();
  bool done = false;
  while (!l->host_stop->load(std::memory_order_relaxed)) {
    (void)shared_turn(*l->nic, *l->worker);
    // Published for lcore 0, which ends the run when every thread is done
    // (a worker's slots are its own lcore's to read).
    if (l->worker->all_finished() != done) {
      done = !done;
      l->threads_done.store(done, std::memory_order_release);
    }
  }
  l->worker->run_once();  // threads parked in wait() see the stop and return
  sched::Worker::detach_os_thread();
  l->finished.store(true, std::memory_order_release);
  while (!l->stop.load(std::memory_order_relaxed)) l->nic->poll();
  l->exited.store(true, std::memory_order_release);
  return 0;
}

}  // namespace nanopu
