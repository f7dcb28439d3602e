#include "nanopu/runtime.h"

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_pause.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <mutex>

#include "absl/strings/str_cat.h"
#include "lib/base/log.h"
#include "lib/contract/clock.h"
#include "lib/contract/context_table.h"
#include "lib/contract/thread_fifos.h"
#include "nic/nic_core.h"
#include "runtime/host/host_params.h"
#include "runtime/host/incarnation.h"
#include "runtime/host/telemetry.h"
#include "runtime/platform/capture.h"
#include "runtime/platform/eal.h"
#include "runtime/platform/port.h"
#include "runtime/platform/uring_port.h"
#include "scheduler/async_preempt.h"
#include "scheduler/worker.h"

namespace nanopu {
namespace {

std::atomic<bool> g_signalled{false};
std::atomic<uint32_t> g_instances{0};

// Iterations of the NIC loop after the last thread returns, so that messages
// it wrote just before returning still leave.
constexpr int kDrainPolls = 10000;

void on_signal(int) { g_signalled.store(true, std::memory_order_relaxed); }

// Adaptive polling: a sleeping worker looks at the world this often even
// when nothing wakes it (a stop() from another thread, say).
constexpr uint32_t kWorkerSleepUs = 10000;

struct WorkerLaunch {
  sched::Worker* worker;
  std::atomic<bool>* stop;
  uint64_t idle_spin_tsc = 0;  // adaptive polling: spin this long, then sleep (0: busy)
  std::atomic<bool> started{false};  // its threads have run once (bound their contexts)
  std::atomic<bool> finished{false};
};

int worker_main(void* arg) {
  auto* l = static_cast<WorkerLaunch*>(arg);
  l->worker->attach_os_thread();
  sched::install_preempt_handler();
  sched::unblock_preempt_signal();
  l->worker->run_once();  // threads bind their contexts in their first instructions
  l->started.store(true, std::memory_order_release);
  uint64_t idle_since = 0;
  while (!l->stop->load(std::memory_order_relaxed)) {
    if (l->worker->run_once()) {
      idle_since = 0;
    } else if (l->idle_spin_tsc == 0) {
      rte_pause();
    } else if (const uint64_t now = clock::ticks(); idle_since == 0) {
      idle_since = now;
    } else if (now - idle_since >= l->idle_spin_tsc) {
      l->worker->sleep_until_work(kWorkerSleepUs);
      idle_since = 0;
    } else {
      rte_pause();
    }
    if (l->worker->all_finished()) break;
  }
  l->worker->run_once();  // let threads parked in wait() see the stop and return
  sched::Worker::detach_os_thread();
  l->finished.store(true, std::memory_order_release);
  return 0;
}

}  // namespace

Runtime::Runtime(const Config& config) : config_(config), instance_(g_instances.fetch_add(1)) {}

Runtime::~Runtime() {
  release_buffers();
  port_.reset();
}

void Runtime::release_buffers() {
  telemetry_withdraw(this);
  capture_.reset();  // its callbacks go before the port stops being polled for good
  // Threads (and their fibers) go before the FIFOs and the pool they use.
  workers_.clear();
  nic_.reset();
  fifos_.clear();
  // Messages held for a JBSQ credit are other hosts' mbufs in a simulation:
  // back to their pools while every pool still exists.
  contexts_.reset();
}

absl::StatusOr<std::unique_ptr<Runtime>> Runtime::create(const Config& config) {
  if (absl::Status s = config.validate(); !s.ok()) return s;
  if (absl::Status s = eal_init(eal_params(config)); !s.ok()) return s;
  std::unique_ptr<Runtime> rt(new Runtime(config));
  if (absl::Status s = rt->open(nullptr); !s.ok()) return s;
  return rt;
}

absl::StatusOr<std::unique_ptr<Runtime>> Runtime::create(const Config& config, PacketIo* io) {
  if (io == nullptr) return absl::InvalidArgumentError("Runtime::create: no PacketIo given");
  if (!config.shared_core())
    return absl::InvalidArgumentError("Runtime::create with a PacketIo: one lcore only (a simulation drives it)");
  if (absl::Status s = config.validate(); !s.ok()) return s;
  if (absl::Status s = eal_init(eal_params(config)); !s.ok()) return s;
  std::unique_ptr<Runtime> rt(new Runtime(config));
  if (absl::Status s = rt->open(io); !s.ok()) return s;
  return rt;
}

absl::Status Runtime::open(PacketIo* external_io) {
  const std::string tag = absl::StrCat(getpid(), "_", instance_);
  absl::StatusOr<std::unique_ptr<Port>> port =
      external_io != nullptr ? Port::open_external(port_params(config_), external_io, "modelled link", tag)
                             : Port::open(port_params(config_), tag);
  if (!port.ok()) return port.status();
  port_ = std::move(*port);
  contexts_ = std::make_unique<ContextTable>(instance_, config_.global_queue_messages);
  // The sender's incarnation tells this run's messages from a previous
  // process's with the same address (docs/wire.md).
  nic_ = std::make_unique<NicCore>(nic_params(config_, *port_, next_incarnation()), port_->pool(),
                                   contexts_.get());
  // A worker sharing the NIC's core polls it at its safe points; not in a
  // simulation, which polls the NIC core as a core of its own, in the
  // order of the modelled clock (a worker ahead on its own clock would
  // move the NIC's time backwards).
  const sched::WorkerParams wp =
      worker_params(config_, config_.shared_core() && !clock::is_virtual() ? nic_->poll_hook() : NicPollHook{});
  for (size_t i = 0; i < config_.worker_count(); ++i) {
    workers_.push_back(std::make_unique<sched::Worker>(static_cast<uint32_t>(i), wp, &stop_));
    nic_->add_worker(workers_.back()->signals());
  }
  if (!config_.pcap_path.empty()) {
    absl::StatusOr<std::unique_ptr<Capture>> cap =
        Capture::start(config_.pcap_path, {port_->id()}, config_.pcap_snap_bytes);
    if (!cap.ok()) return cap.status();
    capture_ = std::move(*cap);
  }
  if (config_.telemetry) {
    telemetry_expose(this);
    static std::once_flag told;
    std::call_once(told, [&] {
      NANOPU_LOG(kInfo, "live counters: dpdk-telemetry.py -f %s, then /nanopu/nic",
                   file_prefix_of(eal_params(config_)).c_str());
    });
  }
  return absl::OkStatus();
}

absl::StatusOr<Thread*> Runtime::spawn(std::function<void(Thread&)> body, uint32_t worker) {
  // While run() drives other lcores the NIC's thread list must not change;
  // between poll_once() calls everything runs on the caller's thread.
  if (running_) return absl::FailedPreconditionError("spawn() during run(): add threads first");
  if (worker >= workers_.size())
    return absl::InvalidArgumentError(absl::StrCat("worker ", worker, " does not exist; this host has ",
                                                   workers_.size(), " (one per --lcores entry after the first)"));
  const uint32_t id = next_thread_id_++;
  auto fifos = std::make_unique<ThreadFifos>();
  fifos->thread_id = id;
  absl::StatusOr<MsgFifo> rx = MsgFifo::create(absl::StrCat("np", instance_, "rx", id), config_.fifo_messages);
  if (!rx.ok()) return rx.status();
  absl::StatusOr<MsgFifo> tx = MsgFifo::create(absl::StrCat("np", instance_, "tx", id), config_.fifo_messages);
  if (!tx.ok()) return tx.status();
  // Room for a notice about every message the transport can hold at once,
  // twice over: a thread that reads them now and then misses none.
  absl::StatusOr<NoticeFifo> failures = NoticeFifo::create(
      absl::StrCat("np", instance_, "nf", id), std::max<uint32_t>(1024, 2 * config_.outbound_slots));
  if (!failures.ok()) return failures.status();
  fifos->rx = std::move(*rx);
  fifos->tx = std::move(*tx);
  fifos->failures = std::move(*failures);
  // A dedicated NIC core may sleep (adaptive polling): the thread rings it
  // after each message. On a shared core the NIC only sleeps between threads.
  if (!config_.shared_core()) fifos->nic_doorbell = nic_->doorbell();
  absl::StatusOr<Thread*> t = workers_[worker]->add_thread(
      id, fifos.get(), port_->pool(), contexts_.get(), config_.max_message_bytes, std::move(body));
  if (!t.ok()) return t.status();
  nic_->add_thread(fifos.get());
  fifos_.push_back(std::move(fifos));
  return t;
}

void Runtime::install_signal_handlers() {
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
}

bool Runtime::signalled() { return g_signalled.load(std::memory_order_relaxed); }

bool Runtime::all_threads_finished() const {
  for (const auto& w : workers_)
    if (!w->all_finished()) return false;
  return true;
}

bool Runtime::poll_once() {
  bool did = poll_nic_once();
  for (size_t i = 0; i < workers_.size(); ++i) did |= poll_worker_once(i);
  return did;
}

bool Runtime::poll_nic_once() { return nic_->poll() != 0; }

uint64_t Runtime::next_credit_ticks() const {
  uint64_t next = UINT64_MAX;
  for (const auto& f : fifos_) next = std::min(next, f->next_credit_at());  // a JBSQ credit due later
  return next;
}

uint64_t Runtime::next_nic_ready_ticks() const { return std::min(nic_->next_tx_ready(), next_credit_ticks()); }

uint64_t Runtime::next_event_ticks() const {
  // (The NIC core's own includes next_tx_ready: not scanned twice.)
  return std::min({nic_->next_event_ticks(), next_credit_ticks(), next_thread_wake_ticks()});
}

uint64_t Runtime::next_thread_wake_ticks() const {
  uint64_t next = UINT64_MAX;
  for (const auto& w : workers_) next = std::min(next, w->next_wake_tsc());
  return next;
}

uint64_t Runtime::worker_slice_from_ticks(size_t worker) const { return workers_[worker]->slice_from_ticks(); }

bool Runtime::poll_worker_once(size_t worker) {
  workers_[worker]->attach_os_thread();
  return workers_[worker]->run_once();
}

void Runtime::drain_tx() {
  for (int i = 0; i < kDrainPolls; ++i) {
    bool pending = false;
    for (const auto& f : fifos_) pending |= !f->tx.empty();
    if (!pending && nic_->poll() == 0) break;
    if (pending) nic_->poll();
  }
  (void)nic_->poll();  // sends control packets a shared-core NIC deferred
}

bool Runtime::workers_idle() const {
  for (const auto& w : workers_)
    if (w->signals()->running_priority.load(std::memory_order_relaxed) != kNothingRunning) return false;
  return true;
}

bool Runtime::should_stop() {
  if (signalled()) stop();
  return stopping();
}

absl::Status Runtime::wait_link() {
  const double seconds = link_wait_s(config_, port_->listens());
  if (seconds <= 0 || port_->wait_link_up(seconds, [this] { return should_stop(); }))
    return absl::OkStatus();
  if (signalled() || stopping()) return absl::OkStatus();
  return absl::UnavailableError(absl::StrCat(
      "link of port ", port_->id(), " (", port_->driver(), ") still down after ", seconds,
      " s; is the peer running? (Config.link_wait_s, --link_wait)"));
}

absl::Status Runtime::run() {
  running_ = true;
  struct Done {
    bool* flag;
    ~Done() { *flag = false; }
  } done{&running_};
  if (rte_lcore_id() != config_.lcores.front())
    return absl::FailedPreconditionError(absl::StrCat(
        "run() must be called on lcore ", config_.lcores.front(), " (the first of Config.lcores)"));
  absl::Status s = config_.shared_core() ? run_shared_core() : run_dedicated();
  drain_tx();
  nic_->quiesce_io();
  return s;
}

bool Runtime::run_workers_once() {
  bool ran = false;
  for (auto& w : workers_) {
    w->attach_os_thread();
    ran |= w->run_once();
  }
  return ran;
}

absl::Status Runtime::run_shared_core() {
  // The NIC loop and every emulated worker take turns on this lcore. Threads
  // bind their contexts in their first instructions: let them, so the first
  // packets after link-up find their context.
  run_workers_once();
  absl::Status link = wait_link();
  while (link.ok() && !should_stop() && !all_threads_finished()) {
    // The workers run inside the NIC's poll, between its receive and its
    // send: a reply leaves in the poll that delivered its request.
    unsigned work = nic_->poll_receive();
    const bool ran = run_workers_once();
    work += nic_->poll_finish(work, /*fresh_clock=*/ran);
    nic_->idle_or_sleep(work + (ran ? 1 : 0), /*workers_idle=*/true);
  }
  stop();
  run_workers_once();  // threads parked in wait() see the stop and return
  return link;
}

absl::Status Runtime::run_dedicated() {
  std::vector<std::unique_ptr<WorkerLaunch>> launches;
  for (size_t i = 0; i < workers_.size(); ++i) {
    auto l = std::make_unique<WorkerLaunch>();
    l->worker = workers_[i].get();
    l->stop = &stop_;
    l->idle_spin_tsc = config_.poll == PollMode::kAdaptive
                           ? std::max<uint64_t>(1, static_cast<uint64_t>(config_.poll_spin_us * 1e-6 *
                                                                         static_cast<double>(clock::hz())))
                           : 0;
    const unsigned lcore = config_.lcores[i + 1];
    if (int rc = rte_eal_remote_launch(worker_main, l.get(), lcore); rc != 0) {
      stop();
      for (size_t k = 0; k < i; ++k) (void)rte_eal_wait_lcore(config_.lcores[k + 1]);
      return absl::InternalError(absl::StrCat("cannot launch worker on lcore ", lcore, ": ", rc));
    }
    launches.push_back(std::move(l));
  }
  auto all_finished = [&launches] {
    for (const auto& l : launches)
      if (!l->finished.load(std::memory_order_acquire)) return false;
    return true;
  };
  // As on a shared core: the first packets must find the contexts bound
  // (waiting at most a second for a thread that computes before binding).
  const uint64_t bind_deadline = rte_rdtsc() + rte_get_tsc_hz();
  for (const auto& l : launches)
    while (!l->started.load(std::memory_order_acquire) && !should_stop() && rte_rdtsc() < bind_deadline)
      rte_pause();
  absl::Status link = wait_link();
  while (link.ok()) {
    const unsigned work = nic_->poll();
    if (should_stop() || all_finished()) break;
    nic_->idle_or_sleep(work, workers_idle());
  }
  stop();
  for (auto& w : workers_) w->signals()->wake_if_sleeping();  // they see the stop at once
  // Keep the NIC running while workers wind down: a thread may be waiting for
  // TX FIFO space the NIC frees.
  while (!all_finished()) nic_->poll();
  // Only this host's worker lcores: run() may itself run on a launched lcore
  // (several hosts in one process), where waiting for every lcore would
  // wait for itself.
  for (size_t i = 0; i < workers_.size(); ++i) (void)rte_eal_wait_lcore(config_.lcores[i + 1]);
  return link;
}

const NicCounters& Runtime::nic_counters() const {
  static const NicCounters kReleased;  // after release_buffers()
  return nic_ ? nic_->counters() : kReleased;
}

std::vector<const Thread*> Runtime::threads() const {
  std::vector<const Thread*> out;
  for (const auto& w : workers_)
    for (size_t i = 0; i < w->thread_count(); ++i) out.push_back(&w->thread(i));
  return out;
}

const CoreCounters& Runtime::core_counters(size_t worker) const { return workers_[worker]->stats(); }

uint16_t Runtime::port_id() const { return port_->id(); }

namespace {
// A port's own counters, as print_counters takes them.
struct PortStats {
  rte_eth_stats s;
  template <typename Fn>
  void for_each(Fn&& fn) const {
    fn(std::string_view("rx_frames"), s.ipackets);
    fn(std::string_view("rx_missed"), s.imissed);
    fn(std::string_view("rx_no_mbuf"), s.rx_nombuf);
    fn(std::string_view("rx_errors"), s.ierrors);
    fn(std::string_view("tx_frames"), s.opackets);
    fn(std::string_view("tx_errors"), s.oerrors);
  }
};
}  // namespace

void Runtime::print_stats(FILE* out) const {
  if (port_->has_device())
    std::fprintf(out, "nanopu statistics (port %u, %s):\n", port_->id(), port_->driver().c_str());
  else
    std::fprintf(out, "nanopu statistics (%s):\n", port_->driver().c_str());
  print_counters(out, "nic", nic_counters());
  if (port_->has_device()) {
    // What the port itself counted: frames lost before the NIC core saw
    // them (a full receive ring, no mbuf) show here and nowhere else.
    PortStats ps{};
    if (rte_eth_stats_get(port_->id(), &ps.s) == 0) print_counters(out, "port", ps);
  }
  if (const UringPort* u = port_->uring(); u != nullptr) print_counters(out, "uring", *u, /*all=*/true);
  if (capture_ != nullptr) print_counters(out, "capture", *capture_, /*all=*/true);
  for (size_t i = 0; i < workers_.size(); ++i)
    print_counters(out, absl::StrCat("core", i), workers_[i]->stats());
  for (const Thread* t : threads())
    print_counters(out, absl::StrCat("thread", t->id()), t->counters());
}

}  // namespace nanopu
