// A run of a topology (docs/design.md §11): its hosts (real runtimes
// running their real programs, nanopu/program.h), their links and the
// switch, on one modelled clock, polled by a SimLoop until every client has
// done its work. nanopu/sim.h is the public face of it.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "lib/contract/clock.h"
#include "nanopu/loadgen.h"
#include "model/network/counted_costs.h"
#include "model/network/sim_link.h"
#include "model/network/sim_loop.h"
#include "model/network/sim_switch.h"
#include "model/timing/timing_params.h"
#include "nanopu/history.h"
#include "nanopu/program.h"
#include "nanopu/stats.h"
#include "runtime/simulation/sim_hosts.h"
#include "runtime/simulation/topology.h"

namespace nanopu::sim {

// A host's link cut for a while (a partition of that host from the rest,
// healed at `until_ps`): every frame it sends or is sent meanwhile is lost.
struct SimCut {
  std::string host;
  uint64_t from_ps = 0, until_ps = 0;
};

// A host crashed at `at_ps` (its process gone: its threads stop where
// they are, frames to it are lost) and, if `restart_ps` is not 0, started
// again then as a new process (a new incarnation; what it kept is what its
// program keeps on disk: its state directory, Raft's --raft_state).
//
// Aimed (`after_send`): at `at_ps` the crash is armed, and falls at the end
// of the first window in which the host's NIC takes a message to send (a
// reply, a forward): the host dies between answering and its next step —
// the window a write acknowledged before it is replicated lives in. Armed
// while the host is down, it falls at its first send once restarted (a
// crash during a restart's catch-up). Its restart then comes
// restart_ps - at_ps after the crash.
//
// With `power_loss` its machine goes down too: its durable files keep what
// they synced and a prefix of the rest (nanopu/durable_file.h).
struct SimCrash {
  std::string host;
  uint64_t at_ps = 0, restart_ps = 0;
  bool after_send = false;
  bool power_loss = false;
};

struct SimParams {
  uint64_t seed = 1;
  double wire_gbps = 200;           // a direct link's (a switch's: its --switch_gbps)
  double wire_latency_ns = 43.75;   // every link (nanoPU OSDI'21 §5)
  double switch_latency_ns = 0;     // port to port
  double idle_step_ns = 1000;       // a node with nothing due is polled at each multiple of this
  double modelled_limit_s = 60;     // a run that has not ended by then fails
  bool progress = true;             // a line on stderr every few seconds of wall time
  // Every host polled at every instant of its own, not only when something
  // is due for it (SimLoop::add_node): slower, and the same run event for
  // event.
  bool poll_every_host = false;
  // Threads the hosts and switches are split across (SimLoop::run): the
  // same run, frame for frame, for any count.
  int threads = 1;
  // Counted time: the NIC's stages as latencies at each host's port, and
  // the threads' work (per message, per word, per switch, declared
  // Thread::compute) charged to its core, from these parameters. Off: a
  // host's code takes no modelled time (the wires' and switch's alone).
  bool counted = true;
  // Measured time besides: a thread's own code between its API calls, as
  // long as it took on this host (equal wall time). Not replayable.
  bool measured = false;
  model::TimingParams timing;
  std::vector<SimCut> cuts;
  std::vector<SimCrash> crashes;
  const Programs* programs = nullptr;  // the binary's: a host line names one
  History* history = nullptr;          // every host's recorded calls, or none
  // The other processes of a run over MPI ranks (runtime/simulation/mpi_peers.h),
  // or none: this process runs every host.
  model::SimPeers* peers = nullptr;
  // Where each host's state directory goes (one below it per host, kept
  // across its restarts); empty: a temporary one the run removes.
  std::string state_root;
};

// A client's result, as its host's name.
struct SimClientResult {
  std::string host;
  loadgen::Result result;  // round trips in modelled ns
};

// A host as the run ended.
struct SimHostEnd {
  std::string name, program;
  bool client = false, down = false;
  const Program* program_object = nullptr;  // while the Simulation exists; null when down
  int exit_status = 0;
  const loadgen::Result* result = nullptr;   // likewise
  NicCounters nic;                           // its NIC's counts, every run of it (a crashed one's too)
};

struct SimReport {
  bool ended = false;               // every load generator ran its load
  std::string stalled;              // not ended because the clock crawled: why, in words
  uint64_t modelled_ps = 0;
  double wall_s = 0;
  uint64_t frames = 0;              // received over every link, both ways
  uint64_t cut_dropped = 0;         // lost on a cut link (SimParams::cuts)
  uint64_t crashes = 0, restarts = 0;
  uint64_t instants = 0, polls = 0;  // summed over every host's and switch's own
  uint64_t windows = 0;              // of the loop (SimLoop: each a lookahead long at most)
  int threads = 1;                   // that ran them
  int ranks = 1;                     // processes (MPI ranks) that ran them
  uint64_t trace_hash = 0;
  int exit_status = 0;              // the worst of the clients'
  model::SimSwitchCounters switch_counters;  // with a switch (a fabric's: summed)
  bool has_switch = false;
  std::vector<std::pair<std::string, uint64_t>> forwarded_by_switch;  // each switch's, in file order
  std::vector<SimClientResult> clients;  // each client's that ran the load engine, in topology order
  std::vector<SimHostEnd> hosts;         // every host, in topology order
};

class Simulation {
 public:
  // A switch's flags (nanopu-switch's that nanopu-sim models, and --spray) into
  // SimSwitchParams; errors name the topology's line.
  [[nodiscard]] static absl::StatusOr<model::SimSwitchParams> switch_params(const Topology& t, const TopologySwitch& w,
                                                                           const SimParams& p);

  Simulation(const Topology& t, const SimParams& p);
  ~Simulation();
  Simulation(const Simulation&) = delete;
  Simulation& operator=(const Simulation&) = delete;

  // Makes the hosts (their programs from their flags) and joins them.
  [[nodiscard]] absl::Status build();
  // Runs to the end (or the modelled limit), stops every host and prints
  // each client's result on `out`.
  SimReport run(FILE* out);

 private:
  [[nodiscard]] absl::Status start_hosts();
  // The host's end of its link: a switch port, or an end of a host-to-host link.
  [[nodiscard]] model::SimPort* port_of(const SimHost& h);
  void add_to_loop(model::SimLoop& loop, SimHost* host);
  void fill_loop(model::SimLoop& loop, SimReport* r);
  // The link between the host and its peer (a switch, or a host), once made.
  [[nodiscard]] model::SimLink* link_of(const std::string& host);
  // The switch (index) and port a host hangs off; -1: none (a direct link).
  [[nodiscard]] std::pair<int, uint32_t> switch_port_of(const std::string& host) const;
  [[nodiscard]] absl::Status make_switches();
  // Every switch link, each once (a switch-to-switch link by its owner).
  template <typename F>
  void for_each_switch_link(const F& f) const {
    for (const auto& w : switches_)
      for (uint32_t i = 0; i < w->ports(); ++i)
        if (w->owns_link(i)) f(w->link(i));
  }
  [[nodiscard]] absl::Status set_cuts();
  [[nodiscard]] absl::Status check_crashes() const;
  // Crashes and restarts due now; true if any. The next one's time.
  bool apply_crashes(SimReport* r);
  [[nodiscard]] uint64_t next_crash_event() const;
  [[nodiscard]] SimHost* host_named(const std::string& name);
  [[nodiscard]] const SimHost* host_named(const std::string& name) const;
  // An armed aimed crash's host has taken a message to send since it was armed.
  [[nodiscard]] bool sent_since_armed(size_t crash) const;
  void crash(SimHost& h, size_t index);  // index: in SimParams::crashes
  void restart(SimHost& h);
  // Counted time: the clock's work costs (before the hosts' threads exist:
  // a thread learns at birth whether it is measured), then each host
  // port's NIC delays.
  void set_work_costs();
  [[nodiscard]] model::CountedCosts costs() const;
  void set_nic_delays();
  [[nodiscard]] uint64_t frames() const;
  // The run's counts and trace hash (simulation_report.cc): under MPI,
  // each rank's own, combined over every rank.
  void count(const model::SimLoop& loop, SimReport* r);
  [[nodiscard]] uint64_t trace_hash(const model::SimLoop& loop) const;
  // Each host's report (a client's result), in topology order on `out`;
  // under MPI, every rank's own, printed by rank 0.
  void report_hosts(const model::SimLoop& loop, FILE* out, SimReport* r);
  void teardown();

  const Topology& t_;
  SimParams p_;
  clock::VirtualClock clock_;
  std::vector<SimHost> hosts_;
  // Links between two hosts (no switch between them), and the host on end a of each.
  std::vector<std::unique_ptr<model::SimLink>> direct_;
  std::vector<std::string> direct_ends_;
  std::vector<std::unique_ptr<model::SimSwitch>> switches_;  // the topology's, in its order
  // A crashed host's runtime and program, kept until the end: frames it
  // sent (its pool's mbufs) may still be on the wire or held by its peers.
  std::vector<std::unique_ptr<Runtime>> dead_runtimes_;
  model::SimLoop* loop_ = nullptr;  // while run() runs
  std::vector<std::unique_ptr<Program>> dead_programs_;
  SimHostContext ctx_;
  std::string own_state_root_;  // made by this run (SimParams::state_root empty), removed at the end
  // Per SimParams::crashes entry: done, restarted; an aimed one armed (its
  // host's messages taken by then), and when each crash fell.
  std::vector<uint8_t> crash_done_, restart_done_, armed_;
  std::vector<uint64_t> armed_msgs_, crashed_at_ps_;
};

}  // namespace nanopu::sim
