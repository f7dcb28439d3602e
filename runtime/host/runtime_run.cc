// Runtime::run(): the loops of a host's lcores, in each layout (docs/design.md,
// "Processes and cores"; §7, "Several NIC cores"). The launched lcores'
// own loops are in lcore_loops.h.
#include <rte_cycles.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_pause.h>

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "lib/contract/clock.h"
#include "lib/contract/thread_fifos.h"
#include "nanopu/runtime.h"
#include "nic/nic_core.h"
#include "nic/spin/hpu_core.h"
#include "runtime/host/host_noise_watch.h"
#include "runtime/host/lcore_loops.h"
#include "scheduler/worker.h"

namespace nanopu {
namespace {

// Iterations of the NIC loop after the last thread returns, so that messages
// it wrote just before returning still leave.
constexpr int kDrainPolls = 10000;

// Threads bind their contexts in their first instructions; the first frames
// must find them bound, so the NIC cores start once they have — or after a
// second, for a thread that computes before binding.
void wait_for_binds(absl::FunctionRef<bool()> all_started, absl::FunctionRef<bool()> stopping) {
  const uint64_t deadline = rte_rdtsc() + rte_get_tsc_hz();
  while (!all_started() && !stopping() && rte_rdtsc() < deadline) rte_pause();
}

template <typename Launch>
void let_go(const std::vector<std::unique_ptr<Launch>>& launches) {
  for (const auto& l : launches) l->go.store(true, std::memory_order_release);
}

// Whether every launch has set `flag` (started, threads_done, finished).
template <typename Launch>
bool all_set(const std::vector<std::unique_ptr<Launch>>& launches,
             std::atomic<bool> Launch::*flag) {
  for (const auto& l : launches)
    if (!((*l).*flag).load(std::memory_order_acquire)) return false;
  return true;
}

}  // namespace

absl::Status Runtime::run() {
  running_ = true;
  struct Done {
    bool* flag;
    ~Done() { *flag = false; }
  } done{&running_};
  if (rte_lcore_id() != config_.lcores.front())
    return absl::FailedPreconditionError(absl::StrCat(
        "run() must be called on lcore ", config_.lcores.front(), " (the first of Config.lcores)"));
  if (absl::Status h = start_hpus(); !h.ok()) return h;
  noise_->start(nics_, config_.shared_core() ? 0 : workers_.size());
  absl::Status s = config_.shared_core() ? run_shared_core() : run_dedicated();
  noise_->finish(nics_);
  end_hpus();
  drain_tx();
  for (auto& nic : nics_) nic->quiesce_io();
  return s;
}

absl::Status Runtime::start_hpus() {
  // Only when some context is installed: an HPU lcore would spin for nothing.
  if (config_.spin_hpu_lcores.empty() || nics_[0]->spin_engine() == nullptr || nics_[0]->spin_engine()->empty())
    return absl::OkStatus();
  NicCore& nic = *nics_[0];
  const auto n = static_cast<uint32_t>(config_.spin_hpu_lcores.size());
  if (absl::Status s = nic.start_spin_hpus(n, absl::StrCat("np", instance_)); !s.ok()) return s;
  for (uint32_t k = 0; k < n; ++k) {
    const unsigned lcore = config_.spin_hpu_lcores[k];
    if (int rc = rte_eal_remote_launch(HpuCore::main, nic.spin().hpu(k), lcore); rc != 0) {
      end_hpus();
      return absl::InternalError(absl::StrCat("cannot launch sPIN HPU ", k, " on lcore ", lcore,
                                              " (is it an EAL lcore, and idle?): ", rc));
    }
    hpus_launched_ = k + 1;
  }
  return absl::OkStatus();
}

void Runtime::end_hpus() {
  NicCore& nic = *nics_[0];
  if (nic.spin_engine() == nullptr || nic.spin_engine()->hpu_count() == 0) return;
  nic.spin().stop_hpus();
  for (uint32_t k = 0; k < hpus_launched_; ++k) (void)rte_eal_wait_lcore(config_.spin_hpu_lcores[k]);
  hpus_launched_ = 0;
  nic.finish_spin_hpus();
}

bool Runtime::workers_quiet() const {
  for (const auto& w : workers_)
    if (!w->quiet()) return false;
  return true;
}

bool Runtime::run_workers_once() {
  bool ran = false;
  for (auto& w : workers_) {
    w->attach_os_thread();
    ran |= w->run_once();
  }
  return ran;
}

unsigned Runtime::shared_core_turn() {
  // The workers run inside the NIC's poll, between its receive and its
  // send: a reply leaves in the poll that delivered its request. Workers
  // whose threads all wait for a message are left alone until the NIC
  // hands one over (Worker::quiet; an idle turn is what a packet waits for).
  NicCore& nic = *nics_[0];
  unsigned work = nic.poll_receive();
  bool ran = false;
  if (const uint64_t d = nic.deliveries(); d != deliveries_seen_ || !workers_quiet()) {
    deliveries_seen_ = d;
    ran = run_workers_once();
  }
  work += nic.poll_finish(work, /*fresh_clock=*/ran);
  return work + (ran ? 1 : 0);
}

bool Runtime::poll_shared_turn() { return shared_core_turn() != 0; }

absl::Status Runtime::run_shared_core() {
  if (nics_.size() > 1) return run_shared_nic_cores();
  // The NIC loop and every emulated worker take turns on this lcore. Threads
  // bind their contexts in their first instructions: let them, so the first
  // packets after link-up find their context.
  run_workers_once();
  absl::Status link = wait_link();
  while (link.ok() && !should_stop() && !all_threads_finished()) {
    const unsigned work = shared_core_turn();
    nics_[0]->idle_or_sleep(work, /*workers_idle=*/true);
  }
  stop();
  run_workers_once();  // threads parked in wait() see the stop and return
  return link;
}

absl::Status Runtime::run_shared_nic_cores() {
  // NIC core k and worker k take turns on lcore k; this lcore runs the first pair.
  std::vector<std::unique_ptr<SharedLaunch>> launches;
  for (size_t k = 1; k < nics_.size(); ++k) {
    auto l = std::make_unique<SharedLaunch>();
    l->nic = nics_[k].get();
    l->worker = workers_[k].get();
    l->host_stop = &stop_;
    if (int rc = rte_eal_remote_launch(shared_main, l.get(), config_.lcores[k]); rc != 0) {
      stop();
      end_launches(launches, config_.lcores);
      return absl::InternalError(
          absl::StrCat("cannot launch NIC core ", k, " on lcore ", config_.lcores[k], ": ", rc));
    }
    launches.push_back(std::move(l));
  }
  sched::Worker& worker = *workers_[0];
  worker.attach_os_thread();
  worker.run_once();  // its threads bind their contexts
  wait_for_binds([&] { return all_set(launches, &SharedLaunch::started); },
                 [this] { return should_stop(); });
  let_go(launches);
  absl::Status link = wait_link();
  while (link.ok() && !should_stop() &&
         !(worker.all_finished() && all_set(launches, &SharedLaunch::threads_done)))
    (void)shared_turn(*nics_[0], worker);
  stop();
  worker.run_once();  // threads parked in wait() see the stop and return
  // The other lcores' threads end too; this NIC core polls until then.
  while (!all_set(launches, &SharedLaunch::finished)) nics_[0]->poll();
  end_launches(launches, config_.lcores);
  return link;
}

absl::Status Runtime::run_dedicated() {
  const uint32_t nic_cores = config_.nic_lcores;
  // NIC cores after the first, on the next lcores: they run until the
  // workers are done (a thread may wait for TX room their polls free).
  std::vector<std::unique_ptr<NicLaunch>> nic_launches;
  for (uint32_t k = 1; k < nic_cores; ++k) {
    auto l = std::make_unique<NicLaunch>();
    l->nic = nics_[k].get();
    if (int rc = rte_eal_remote_launch(nic_main, l.get(), config_.lcores[k]); rc != 0) {
      end_launches(nic_launches, config_.lcores);
      return absl::InternalError(
          absl::StrCat("cannot launch NIC core ", k, " on lcore ", config_.lcores[k], ": ", rc));
    }
    nic_launches.push_back(std::move(l));
  }
  std::vector<std::unique_ptr<WorkerLaunch>> launches;
  for (size_t i = 0; i < workers_.size(); ++i) {
    auto l = std::make_unique<WorkerLaunch>();
    l->worker = workers_[i].get();
    l->stop = &stop_;
    l->probe = noise_->worker_probe(i);
    l->idle_spin_tsc =
        config_.poll == PollMode::kAdaptive
            ? std::max<uint64_t>(1, static_cast<uint64_t>(config_.poll_spin_us * 1e-6 *
                                                          static_cast<double>(clock::hz())))
            : 0;
    const unsigned lcore = config_.lcores[nic_cores + i];
    if (int rc = rte_eal_remote_launch(worker_main, l.get(), lcore); rc != 0) {
      stop();
      for (size_t k = 0; k < i; ++k) (void)rte_eal_wait_lcore(config_.lcores[nic_cores + k]);
      end_launches(nic_launches, config_.lcores);
      return absl::InternalError(absl::StrCat("cannot launch worker on lcore ", lcore, ": ", rc));
    }
    launches.push_back(std::move(l));
  }
  wait_for_binds([&] { return all_set(launches, &WorkerLaunch::started); },
                 [this] { return should_stop(); });
  let_go(nic_launches);
  absl::Status link = run_nic_core_zero([&] { return all_set(launches, &WorkerLaunch::finished); });
  // Only this host's lcores: run() may itself run on a launched lcore
  // (several hosts in one process), where waiting for every lcore would
  // wait for itself.
  for (size_t i = 0; i < workers_.size(); ++i)
    (void)rte_eal_wait_lcore(config_.lcores[nic_cores + i]);
  end_launches(nic_launches, config_.lcores);
  return link;
}

absl::Status Runtime::run_nic_core_zero(absl::FunctionRef<bool()> all_finished) {
  NicCore& nic = *nics_[0];
  absl::Status link = wait_link();
  while (link.ok()) {
    const unsigned work = nic.poll();
    if (should_stop() || all_finished()) break;
    nic.idle_or_sleep(work, workers_idle());
  }
  stop();
  for (auto& w : workers_) w->signals()->wake_if_sleeping();  // they see the stop at once
  // Keep the NIC running while workers wind down: a thread may be waiting for
  // TX FIFO space the NIC frees.
  while (!all_finished()) nic.poll();
  return link;
}

void Runtime::drain_tx() {
  // On the calling lcore, every NIC core in turn (the others have stopped).
  for (int i = 0; i < kDrainPolls; ++i) {
    bool pending = false;
    for (const auto& f : fifos_)
      for (uint32_t k = 0; k < config_.nic_lcores; ++k) pending |= !f->tx[k].empty();
    for (const auto& nic : nics_) pending |= nic->has_spin_sends();  // handler sends waiting for a slot
    unsigned work = 0;
    for (auto& nic : nics_) work += nic->poll();
    if (!pending && work == 0) break;
  }
  for (auto& nic : nics_) (void)nic->poll();  // sends control packets a shared-core NIC deferred
}

}  // namespace nanopu
