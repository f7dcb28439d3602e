// nanopu::Runtime — one emulated nanoPU host (docs/design.md, "Processes and
// cores"): the EAL, one port, the NIC core and the worker cores with their
// threads.
//
//   auto rt = nanopu::Runtime::create(config);        // EAL + port
//   (*rt)->spawn([](nanopu::Thread& t) { ... });      // threads, before run
//   (*rt)->run();                                     // until stop/signal/all done
//
// Threads are fibers on worker cores; each worker core is an EAL lcore after
// the NIC core's, or the NIC core itself in single-lcore mode.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "nanopu/config.h"
#include "nanopu/host_noise.h"
#include "nanopu/spin.h"
#include "nanopu/stats.h"
#include "nanopu/thread.h"

namespace nanopu {

class ContextTable;
class MsgFifo;
class NicCore;
class Port;
class OsPort;
class SwxProgram;
class PacketIo;
class Capture;
class HostNoiseWatch;
class HostMemory;
struct ThreadFifos;
namespace sched {
class Worker;
}

class Runtime {
 public:
  // Initialises the EAL (once per process) and opens the configured port.
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<Runtime>> create(const Config& config);
  // A host whose frames go through `io` (it outlives the host) instead of
  // a DPDK port or a socket: a modelled link of nanopu-sim (docs/design.md
  // §11). Config's port and backend settings are not used.
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<Runtime>> create(const Config& config, PacketIo* io);
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  // Adds a thread running body on worker core `worker` (0-based). Before run().
  // The body usually starts with t.bind(context, priority).
  [[nodiscard]] absl::StatusOr<Thread*> spawn(std::function<void(Thread&)> body,
                                              uint32_t worker = 0);

  // sPIN (nanopu/spin.h): an execution context whose handlers this host's
  // NIC core runs on every message its rule matches, before core selection.
  // Before run(); with one NIC core (Config::nic_lcores = 1). An error for a
  // rule that overlaps another's, a memory too big, no handler.
  [[nodiscard]] absl::Status install(spin::ExecutionContext ctx);
  // Each installed context's figures (measured), in install order. Read
  // after run(), or between poll_once() calls.
  [[nodiscard]] std::vector<spin::ContextReport> spin_reports() const;

  // Runs the NIC core and workers until stop(), SIGINT/SIGTERM (with
  // install_signal_handlers()), or until every thread's body has returned.
  // Must be called on the first of --lcores (the EAL main lcore, or an lcore
  // launched for this host when one process runs several).
  [[nodiscard]] absl::Status run();

  // One NIC iteration and one scheduling round of each worker, on the calling
  // thread: for tests and simulations that drive several hosts from one
  // thread (single-lcore configurations only). True if the NIC core or a
  // thread did anything.
  bool poll_once();
  // The same one core at a time, for a simulation that gives each core a
  // clock of its own (docs/design.md §11): the NIC core's iteration, or
  // worker `worker`'s round. poll_once() is the first, then each of these.
  bool poll_nic_once();
  bool poll_worker_once(size_t worker);
  // One turn of run()'s loop on a shared core (one NIC core, its workers on
  // the same lcore): the NIC's receive half, every worker's round, then the
  // NIC's send half, so a reply leaves in the turn that delivered its
  // request. On the calling thread; for benchmarks that step a host
  // (nanopu-bench-rpc). True if anything was done.
  bool poll_shared_turn();
  // When the NIC core next has work of its own in a simulation: the
  // earliest message a worker core finished ahead of the NIC's clock
  // (its work charged) may leave then. UINT64_MAX: none.
  [[nodiscard]] uint64_t next_nic_ready_ticks() const;
  // When a thread waiting in wait_for() is next due to wake (its deadline),
  // so that a simulation's clock stops there rather than a step later.
  // UINT64_MAX: none.
  [[nodiscard]] uint64_t next_thread_wake_ticks() const;
  // When this host next has work of its own, in a simulation: the NIC
  // core's (NicCore::next_event_ticks), a JBSQ credit's, a thread's wake.
  // Until then, and with nothing arriving, polling it changes nothing.
  [[nodiscard]] uint64_t next_event_ticks() const;
  // When the thread on worker `worker` began the slice of modelled work it
  // is out in (Thread::compute, a spin for TX room): a simulation may
  // resume that core early, from then on, when something arrives.
  // UINT64_MAX: the core's charged work is not to be cut.
  [[nodiscard]] uint64_t worker_slice_from_ticks(size_t worker) const;

  // Thread-safe; run() returns soon after. Threads blocked in wait() see false.
  void stop() { stop_.store(true, std::memory_order_relaxed); }
  [[nodiscard]] bool stopping() const { return stop_.load(std::memory_order_relaxed); }
  // SIGINT and SIGTERM stop every Runtime's run() in this process.
  static void install_signal_handlers();
  [[nodiscard]] static bool signalled();

  [[nodiscard]] bool all_threads_finished() const;
  // The NIC's counters: live with one NIC core; with several
  // (Config::nic_lcores), their sum as it was at the call (a copy per
  // calling thread, valid until its next call).
  [[nodiscard]] const NicCounters& nic_counters() const;
  // NIC core nic_core's own (0 .. nic_core_count() - 1).
  [[nodiscard]] const NicCounters& nic_core_counters(size_t nic_core) const;
  [[nodiscard]] size_t nic_core_count() const { return nics_.size(); }
  // TSC ticks each stage of the NIC loop took, summed over the NIC cores,
  // in the loop's order (nic/stages/stage_clock.h names them): a
  // diagnostic of builds with the CMake option NANOPU_STAGE_CLOCK, all 0
  // in others.
  [[nodiscard]] std::vector<uint64_t> nic_stage_ticks() const;
  [[nodiscard]] std::vector<const Thread*> threads() const;
  [[nodiscard]] const CoreCounters& core_counters(size_t worker) const;
  [[nodiscard]] size_t worker_count() const { return workers_.size(); }
  [[nodiscard]] uint16_t port_id() const;
  [[nodiscard]] const Config& config() const { return config_; }

  // Prints the port, the NIC counters and each thread's counters (non-zero).
  void print_stats(FILE* out) const;

  // Adds an entry to a table of the --pipeline program (every NIC core's),
  // while the host runs: it takes effect on the next frame. Errors name the
  // table and the entry; one every core's program refuses alike (they are
  // one program), so a refusal stops at the first.
  absl::Status add_pipeline_entry(const std::string& table, const std::string& entry);
  // The same for the --egress_pipeline program's tables.
  absl::Status add_egress_entry(const std::string& table, const std::string& entry);
  // Its tables' counts, a line each: "TABLE: hit N miss N; ACTION N ..."
  // (with several NIC cores, "nicK TABLE: ..." for each; the egress
  // program's after them, "egress TABLE: ..."); after a program's tables,
  // each of its register arrays' first (up to 8) registers, "regarray
  // NAME: V0 V1 ..." (in-band telemetry's int_sink.spec keeps its hop
  // records there). Empty with no program.
  [[nodiscard]] std::vector<std::string> pipeline_table_counts() const;

  // After run(): the host's stalls and steal time over the run, measured
  // (not measured on a modelled clock). See nanopu/host_noise.h.
  [[nodiscard]] HostNoise host_noise() const;

  // After run() has returned: ends the threads and frees every buffer the
  // host holds, keeping its pool. Hosts joined by zero-copy ports (net_ring)
  // hold each other's buffers, so call this on all of them before
  // destroying any (the destructor does it too, but then another host's
  // buffers may go back to a pool already gone). The host cannot run again.
  void release_buffers();

 private:
  explicit Runtime(const Config& config);
  absl::Status open(PacketIo* external_io);
  [[nodiscard]] bool should_stop();  // a signal arrived or stop() was called
  [[nodiscard]] absl::Status wait_link();
  bool run_workers_once();  // true if any thread ran
  [[nodiscard]] uint64_t next_credit_ticks() const;  // a simulation: the next JBSQ credit due
  [[nodiscard]] bool workers_idle() const;  // no thread running on any worker core
  absl::Status run_shared_core();
  absl::Status run_shared_nic_cores();  // several NIC cores, each sharing its lcore with a worker
  absl::Status run_dedicated();
  // NIC core 0's loop on the calling lcore, while the workers run.
  absl::Status run_nic_core_zero(absl::FunctionRef<bool()> all_finished);
  unsigned shared_core_turn();  // run_shared_core's turn: its work (poll_shared_turn)
  [[nodiscard]] bool workers_quiet() const;  // every worker's threads wait for a message (Worker::quiet)
  uint64_t deliveries_seen_ = 0;  // the NIC core's deliveries() when the workers last ran (shared_core_turn)
  void drain_tx();
  // sPIN HPU lcores (Config::spin_hpu_lcores): launched for a run when a
  // context is installed, stopped and their last work applied after it.
  absl::Status open_os_path_and_program(bool simulated, const std::string& tag);
  absl::Status start_hpus();
  void end_hpus();
  uint32_t hpus_launched_ = 0;

  Config config_;
  uint32_t instance_;
  std::atomic<bool> stop_{false};
  bool running_ = false;
  std::unique_ptr<Port> port_;
  std::unique_ptr<OsPort> os_port_;  // Config::os_port; outlives the NIC cores that send to it
  std::vector<std::unique_ptr<SwxProgram>> programs_;  // Config::pipeline_program, one a NIC core
  std::vector<std::unique_ptr<SwxProgram>> egress_programs_;  // Config::egress_program, one a NIC core
  std::unique_ptr<Capture> capture_;  // --pcap
  std::unique_ptr<ContextTable> contexts_;
  std::vector<std::unique_ptr<ThreadFifos>> fifos_;
  std::vector<MsgFifo> inboxes_;  // several NIC cores: each one's inbox (peer_dispatch.h)
  std::vector<std::unique_ptr<NicCore>> nics_;  // NIC core 0 first
  std::vector<std::unique_ptr<sched::Worker>> workers_;
  std::unique_ptr<HostNoiseWatch> noise_;
  std::unique_ptr<HostMemory> memory_;  // Config::memory_model (a simulation's)
  uint32_t next_thread_id_ = 0;
};

}  // namespace nanopu
