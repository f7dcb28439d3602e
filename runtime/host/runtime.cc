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
#include "model/queueing/erlang_c.h"
#include "nic/nic_core.h"
#include "runtime/host/host_memory.h"
#include "runtime/host/pipeline_programs.h"
#include "runtime/host/host_noise_watch.h"
#include "runtime/host/host_params.h"
#include "runtime/host/incarnation.h"
#include "runtime/host/lcore_loops.h"
#include "runtime/host/telemetry.h"
#include "runtime/platform/capture.h"
#include "runtime/platform/eal.h"
#include "runtime/platform/os_port.h"
#include "runtime/platform/port.h"
#include "runtime/platform/uring_port.h"
#include "scheduler/async_preempt.h"
#include "scheduler/worker.h"

namespace nanopu {
namespace {

std::atomic<bool> g_signalled{false};
std::atomic<uint32_t> g_instances{0};

void on_signal(int) { g_signalled.store(true, std::memory_order_relaxed); }

// NEBULA (ISCA'20) §IV-C beside the bound the host admits by: the load at
// which its worker cores, were every one serving the context, meet the SLO
// at the 99th percentile — waits as an M/M/k queue's (Erlang-C), the
// service its mean, as the bound assumes — and the buffers Erlang-C's mean
// queue there would size (10 × E[Nq]). *Modelled*, for the operator.
void log_slo_sizing(const Config::ContextSlo& s, uint32_t cores) {
  const double a = model::max_load_within(cores, s.service_ns, s.slo_ns);
  const double nq = model::mean_queued(cores, a);
  NANOPU_LOG(kInfo, "context %u: Erlang-C (M/M/%u waits, the service its mean; modelled): the SLO holds at p99 up to "
             "load %.3f, where %.2f wait on average; NEBULA's sizing, 10 x E[Nq] = %.1f messages",
             s.context, cores, a / cores, nq, 10 * nq);
}

}  // namespace

Runtime::Runtime(const Config& config)
    : config_(config), instance_(g_instances.fetch_add(1)), noise_(std::make_unique<HostNoiseWatch>()) {}

HostNoise Runtime::host_noise() const { return noise_->noise(); }

Runtime::~Runtime() {
  release_buffers();
  port_.reset();
  // After the host's port: the frames the kernel sent out of it came from
  // this port's pool, and a NIC frees the last of them when it stops.
  os_port_.reset();
}

void Runtime::release_buffers() {
  telemetry_withdraw(this);
  if (memory_ != nullptr) {  // once, with what the run charged
    NANOPU_LOG(kInfo, "%s", memory_->summary().c_str());
    memory_.reset();
  }
  capture_.reset();  // its callbacks go before the port stops being polled for good
  // Threads (and their fibers) go before the FIFOs and the pool they use.
  workers_.clear();
  nics_.clear();
  programs_.clear();  // after the NIC cores that ran them
  egress_programs_.clear();
  inboxes_.clear();  // frames handed between NIC cores and not yet taken
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
  if (config.lcores.size() != 1)
    return absl::InvalidArgumentError("Runtime::create with a PacketIo: one lcore only (a simulation drives it)");
  if (!config.spin_hpu_lcores.empty())
    return absl::InvalidArgumentError(
        "spin_hpu_lcores: not on a modelled clock (there the NIC core runs the sPIN handlers)");
  if (absl::Status s = config.validate(); !s.ok()) return s;
  if (absl::Status s = eal_init(eal_params(config)); !s.ok()) return s;
  std::unique_ptr<Runtime> rt(new Runtime(config));
  if (absl::Status s = rt->open(io); !s.ok()) return s;
  return rt;
}

// Beside the port: the OS's exception port (Config::os_port) and the
// pipeline programs, one a NIC core (Config::pipeline_program,
// Config::egress_program).
absl::Status Runtime::open_os_path_and_program(bool simulated, const std::string& tag) {
  if (!config_.os_port.empty()) {
    if (simulated)
      return absl::InvalidArgumentError(
          absl::StrCat("--os_port=", config_.os_port, ": a simulated host has no OS to hand frames to"));
    absl::StatusOr<std::unique_ptr<OsPort>> os = OsPort::open(config_.os_port, *port_, tag);
    if (!os.ok()) return os.status();
    os_port_ = std::move(*os);
  }
  absl::StatusOr<std::vector<std::unique_ptr<SwxProgram>>> programs =
      load_pipeline_programs(config_, PipelineSide::kIngress, config_.nic_lcores, instance_);
  if (!programs.ok()) return programs.status();
  programs_ = std::move(*programs);
  programs = load_pipeline_programs(config_, PipelineSide::kEgress, config_.nic_lcores, instance_);
  if (!programs.ok()) return programs.status();
  egress_programs_ = std::move(*programs);
  return absl::OkStatus();
}

absl::Status Runtime::open(PacketIo* external_io) {
  const std::string tag = absl::StrCat(getpid(), "_", instance_);
  absl::StatusOr<std::unique_ptr<Port>> port =
      external_io != nullptr ? Port::open_external(port_params(config_), external_io, "modelled link", tag)
                             : Port::open(port_params(config_), tag);
  if (!port.ok()) return port.status();
  port_ = std::move(*port);
  // Several NIC cores burst on their queues while core 0 would restart a
  // port that reconnects (LinkWatch), and a memif's queue count is its
  // peer's to agree: neither is built.
  if (config_.nic_lcores > 1 &&
      (port_->reconnects() || port_->driver().find("memif") != std::string::npos))
    return absl::InvalidArgumentError(
        absl::StrCat("--nic_lcores=", config_.nic_lcores, " with ", port_->driver(),
                     ": several NIC cores on a memif (or any port that must be restarted to "
                     "reconnect) are not built; "
                     "use net_null, net_tap, net_af_packet with qpairs, or a NIC"));
  if (absl::Status s = open_os_path_and_program(external_io != nullptr, tag); !s.ok()) return s;
  const uint32_t nic_cores = config_.nic_lcores;
  contexts_ = std::make_unique<ContextTable>(instance_, config_.global_queue_messages, nic_cores);
  for (const Config::ContextSlo& s : config_.context_slos) {
    const double ahead = s.slo_ns / s.service_ns - 1;
    if (absl::Status st = contexts_->set_slo(s.context, ahead); !st.ok()) return st;
    NANOPU_LOG(kInfo, "context %u: SLO %.2f us over a %.2f us service: admits a message while fewer than %.2f "
               "per thread are ahead of it, rejects the rest (NACK|REJECT)", s.context, s.slo_ns / 1e3,
               s.service_ns / 1e3, ahead);
    log_slo_sizing(s, static_cast<uint32_t>(config_.worker_count()));
  }
  // Several NIC cores: each one's inbox for the frames of its peers another
  // core received (nic/dispatch/peer_dispatch.h), any core a producer.
  std::array<MsgFifo*, kMaxNicCores> inboxes{};
  inboxes_.reserve(nic_cores);
  for (uint32_t k = 0; nic_cores > 1 && k < nic_cores; ++k) {
    absl::StatusOr<MsgFifo> f =
        MsgFifo::create(absl::StrCat("np", instance_, "in", k), 4096, nic_cores);
    if (!f.ok()) return f.status();
    inboxes_.push_back(std::move(*f));
    inboxes[k] = &inboxes_.back();
  }
  // The sender's incarnation tells this run's messages from a previous
  // process's with the same address (docs/wire.md); every NIC core of the
  // host is the same sender.
  const uint16_t incarnation = next_incarnation();
  for (uint32_t k = 0; k < nic_cores; ++k) {
    NicParams np = nic_params(config_, *port_, incarnation, k, inboxes);
    if (os_port_ != nullptr && k == 0) {
      np.os_io = os_port_->io();
      np.os_port_id = os_port_->id();
    }
    if (!programs_.empty()) np.program = programs_[k].get();
    if (!egress_programs_.empty()) np.egress_program = egress_programs_[k].get();
    nics_.push_back(std::make_unique<NicCore>(np, port_->pool(), contexts_.get()));
  }
  // A worker sharing the NIC's core polls it at its safe points; not in a
  // simulation, which polls the NIC core as a core of its own, in the
  // order of the modelled clock (a worker ahead on its own clock would
  // move the NIC's time backwards).
  // Several NIC cores sharing their lcores: worker i shares NIC core i's.
  if (!config_.memory_model.empty()) {
    if (!clock::is_virtual())
      return absl::InvalidArgumentError(absl::StrCat(
          "--memory_model=", config_.memory_model, ": a modelled memory system charges modelled time; run the host "
          "under nanopu-sim"));
    absl::StatusOr<HostMemory> m =
        HostMemory::parse(config_.memory_model, static_cast<uint32_t>(config_.worker_count()));
    if (!m.ok()) return m.status();
    memory_ = std::make_unique<HostMemory>(std::move(*m));
  }
  for (size_t i = 0; i < config_.worker_count(); ++i) {
    sched::WorkerParams wp =
        worker_params(config_, config_.shared_core() && !clock::is_virtual()
                                   ? nics_[nics_.size() > 1 ? i : 0]->poll_hook()
                                   : NicPollHook{});
    wp.message_charge = memory_.get();
    workers_.push_back(std::make_unique<sched::Worker>(static_cast<uint32_t>(i), wp, &stop_));
    for (auto& nic : nics_) nic->add_worker(workers_.back()->signals());
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

absl::Status Runtime::install(spin::ExecutionContext ctx) {
  if (running_) return absl::FailedPreconditionError("install() during run(): install sPIN contexts first");
  // Handlers share their context's memory; with several NIC cores two of
  // them could run one context's handlers at once.
  if (nics_.size() != 1)
    return absl::FailedPreconditionError(absl::StrCat("sPIN contexts need one NIC core; this host has ",
                                                      nics_.size(), " (--nic_lcores)"));
  return nics_[0]->spin().install(std::move(ctx));
}

std::vector<spin::ContextReport> Runtime::spin_reports() const {
  if (nics_.empty() || nics_[0]->spin_engine() == nullptr) return {};
  return nics_[0]->spin_engine()->reports();
}

absl::StatusOr<Thread*> Runtime::spawn(std::function<void(Thread&)> body, uint32_t worker) {
  // While run() drives other lcores the NIC's thread list must not change;
  // between poll_once() calls everything runs on the caller's thread.
  if (running_) return absl::FailedPreconditionError("spawn() during run(): add threads first");
  if (worker >= workers_.size())
    return absl::InvalidArgumentError(
        absl::StrCat("worker ", worker, " does not exist; this host has ", workers_.size(),
                     " (an --lcores entry after the --nic_lcores NIC cores each, or one per "
                     "NIC core sharing its lcore)"));
  const uint32_t id = next_thread_id_++;
  const uint32_t nic_cores = config_.nic_lcores;
  auto fifos = std::make_unique<ThreadFifos>();
  fifos->thread_id = id;
  fifos->nic_cores = nic_cores;
  // Every NIC core delivers into the one RX FIFO; each drains a TX FIFO of its own.
  absl::StatusOr<MsgFifo> rx =
      MsgFifo::create(absl::StrCat("np", instance_, "rx", id), config_.fifo_messages, nic_cores);
  if (!rx.ok()) return rx.status();
  fifos->rx = std::move(*rx);
  if (config_.register_path && nic_cores == 1) {
    // One slot per message the FIFO holds, the two the thread holds (the
    // one it reads, the next), and a burst's worth of spare.
    fifos->rx_inline_slots = config_.fifo_messages + 2 + ThreadFifos::kStagedMax;
    fifos->rx_inline = std::make_unique<InlineMsg[]>(fifos->rx_inline_slots);
    fifos->nic[0].slot_owner = std::make_unique<uint64_t[]>(fifos->rx_inline_slots);
    // The FIFO's messages, a burst the NIC core has taken and is framing,
    // and the one it may hold back (a simulation's not-ready message).
    fifos->tx_inline_slots = config_.fifo_messages + ThreadFifos::kStagedMax + 4;
    fifos->tx_inline = std::make_unique<InlineTxMsg[]>(fifos->tx_inline_slots);
  }
  for (uint32_t k = 0; k < nic_cores; ++k) {
    absl::StatusOr<MsgFifo> tx =
        MsgFifo::create(k == 0 ? absl::StrCat("np", instance_, "tx", id)
                               : absl::StrCat("np", instance_, "tx", id, "_", k),
                        config_.fifo_messages);
    if (!tx.ok()) return tx.status();
    fifos->tx[k] = std::move(*tx);
  }
  // Room for a notice about every message the transport can hold at once,
  // twice over: a thread that reads them now and then misses none.
  absl::StatusOr<NoticeFifo> failures = NoticeFifo::create(
      absl::StrCat("np", instance_, "nf", id),
      std::max<uint32_t>(1024, 2 * config_.outbound_slots * nic_cores), nic_cores);
  if (!failures.ok()) return failures.status();
  fifos->failures = std::move(*failures);
  // A dedicated NIC core may sleep (adaptive polling, one NIC core only):
  // the thread rings it after each message. On a shared core the NIC only
  // sleeps between threads.
  if (!config_.shared_core()) fifos->nic_doorbell = nics_[0]->doorbell();
  absl::StatusOr<Thread*> t = workers_[worker]->add_thread(
      id, fifos.get(), port_->pool(), contexts_.get(), config_.max_message_bytes, std::move(body));
  if (!t.ok()) return t.status();
  for (auto& nic : nics_) nic->add_thread(fifos.get());
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

bool Runtime::poll_nic_once() { return nics_[0]->poll() != 0; }

uint64_t Runtime::next_credit_ticks() const {
  uint64_t next = UINT64_MAX;
  for (const auto& f : fifos_) next = std::min(next, f->next_credit_at());  // a JBSQ credit due later
  return next;
}

uint64_t Runtime::next_nic_ready_ticks() const {
  return std::min(nics_[0]->next_tx_ready(), next_credit_ticks());
}

uint64_t Runtime::next_event_ticks() const {
  // (The NIC core's own includes next_tx_ready: not scanned twice.)
  return std::min({nics_[0]->next_event_ticks(), next_credit_ticks(), next_thread_wake_ticks()});
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

const NicCounters& Runtime::nic_counters() const {
  static const NicCounters kReleased;  // after release_buffers()
  if (nics_.empty()) return kReleased;
  if (nics_.size() == 1) return nics_[0]->counters();  // live
  // Per calling thread (telemetry's and the application's apart): valid
  // until that thread's next call.
  static thread_local NicCounters summed;
  summed = NicCounters{};
  for (const auto& nic : nics_) summed += nic->counters();
  return summed;
}

std::vector<uint64_t> Runtime::nic_stage_ticks() const {
  std::vector<uint64_t> sum(kNicStages, 0);
  for (const auto& nic : nics_)
    for (size_t i = 0; i < kNicStages; ++i) sum[i] += nic->stage_ticks()[i];
  return sum;
}

const NicCounters& Runtime::nic_core_counters(size_t nic_core) const {
  static const NicCounters kReleased;  // after release_buffers()
  return nic_core < nics_.size() ? nics_[nic_core]->counters() : kReleased;
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
// Each program's counts, named by NIC core when there are several.
void append_counts(const std::vector<std::unique_ptr<SwxProgram>>& programs, const char* prefix,
                   std::vector<std::string>* lines) {
  for (size_t k = 0; k < programs.size(); ++k)
    for (const std::string& line : programs[k]->table_counts())
      lines->push_back(absl::StrCat(prefix, programs.size() == 1 ? "" : absl::StrCat("nic", k, " "), line));
}

// An entry into every NIC core's program: they are one program, so a
// refusal stops at the first.
absl::Status add_to_all(const std::vector<std::unique_ptr<SwxProgram>>& programs, const char* flag,
                        const std::string& table, const std::string& entry) {
  if (programs.empty())
    return absl::FailedPreconditionError(absl::StrCat("no --", flag, " program: no table to add to"));
  for (const std::unique_ptr<SwxProgram>& p : programs)
    if (absl::Status s = p->add_entry(table, entry); !s.ok()) return s;
  return absl::OkStatus();
}
}  // namespace

std::vector<std::string> Runtime::pipeline_table_counts() const {
  // DPDK's own per table and action.
  std::vector<std::string> lines;
  append_counts(programs_, "", &lines);
  append_counts(egress_programs_, "egress ", &lines);
  return lines;
}

absl::Status Runtime::add_pipeline_entry(const std::string& table, const std::string& entry) {
  return add_to_all(programs_, "pipeline", table, entry);
}

absl::Status Runtime::add_egress_entry(const std::string& table, const std::string& entry) {
  return add_to_all(egress_programs_, "egress_pipeline", table, entry);
}

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
  for (const std::string& line : pipeline_table_counts()) std::fprintf(out, "  pipeline %s\n", line.c_str());
  if (nics_.size() > 1)  // each NIC core's own (the line above is their sum)
    for (size_t k = 0; k < nics_.size(); ++k)
      print_counters(out, absl::StrCat("nic", k), nics_[k]->counters());
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
