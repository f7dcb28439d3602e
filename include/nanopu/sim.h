// Every host of a topology — each running its program's real code
// (nanopu/program.h) on a real nanopu Runtime — in one process on one
// modelled clock: one seed, one run, event for event (docs/design.md §11;
// docs/services.md, "Your service on the modelled clock"). And the same
// under seeded faults with invariants checked after each run (FoundationDB's
// and TigerBeetle's way; docs/services.md, "Testing your service under
// faults"). program_main (nanopu/program_main.h) gives a binary both as
// its `sim` and `dst` commands; these are the calls underneath, for a
// program of one's own or a test.
//
// Link nanopu::sim (find_package(nanopu)) or pkg-config nanopu-sim.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "nanopu/history.h"
#include "nanopu/loadgen.h"
#include "nanopu/program.h"
#include "nanopu/stats.h"

namespace nanopu::sim {

// A host's link cut for a while (a partition of that host from the rest,
// healed after `for_ms`): every frame it sends or is sent meanwhile is lost.
struct Cut {
  std::string host;
  double from_ms = 0, for_ms = 0;
};
// A host's process killed at `at_ms` (its threads stop where they are,
// frames to it are lost) and, if `down_ms` > 0, started again that much
// later as a new process: its program made again from its flags, keeping
// only its state directory (ProgramArgs::state_dir).
//
// Aimed (`after_send`): armed at `at_ms`, the crash falls the moment the
// host next sends a message (within a link's latency of it): between a
// server answering and its next step, where a write acknowledged before it
// is replicated is lost; between its call to another server and the
// answer; or, armed while it is down, at its first send once restarted (its
// catch-up). Drawn blind, a crash seldom lands there.
//
// With `power_loss` the machine goes down, not only the process: each
// nanopu::DurableFile the host has open keeps what it synced and a prefix
// of the rest (nanopu/durable_file.h).
struct Crash {
  std::string host;
  double at_ms = 0, down_ms = 0;
  bool after_send = false;
  bool power_loss = false;
};

// How a core's work takes modelled time: counted (the NIC's stages as port
// latencies, each core's work per message, per word, per switch, and what
// Thread::compute/charge_work declare), measured besides (each thread's own
// code as long as it took here: not replayable), or none (the wires' and the
// switch's time alone).
enum class Charge : uint8_t { kCounted, kMeasured, kNone };

struct Options {
  uint64_t seed = 1;                // when each host boots, and every host's --seed its line leaves out
  Charge charge = Charge::kCounted;
  std::string timing_params = "osdi21";  // or "tail" (docs/design.md §5)
  double wire_gbps = 200;           // a direct link's (a switch's: its --switch_gbps)
  double wire_latency_ns = 43.75;   // every link (nanoPU OSDI'21 §5)
  double switch_latency_ns = 0;     // port to port
  double idle_step_ns = 1000;       // the clock's step when nothing is due sooner
  double modelled_limit_s = 60;     // a run that has not ended by then has not ended
  bool progress = true;             // a line on stderr every 5 s of wall time
  bool poll_every_host = false;     // every host at every instant (slower; the same run)
  // Threads the hosts and switches are split across, each running its
  // share of every window (conservative, with the links' latency as
  // lookahead): the same run, frame for frame, for any count. At most the
  // topology's hosts and switches.
  int threads = 1;
  std::vector<Cut> cuts;
  std::vector<Crash> crashes;
  std::string history_path;         // every recorded call of every host, as JSON lines; "" none
  bool buggify = false;             // nanopu/buggify.h's sites on, drawn from `seed` (a campaign's runs: on)
};

// One host at the end of a run.
struct HostReport {
  std::string name, program;
  bool client = false;
  bool down = false;               // crashed and not restarted
  // Its program (dynamic_cast to your own class to look at its state):
  // only while an invariant or run()'s `inspect` looks; null when down.
  const Program* program_object = nullptr;
  int exit_status = 0;             // its report()'s
  std::shared_ptr<const loadgen::Result> result;  // a client that ran the load engine
  NicCounters nic;                 // its NIC's counts over every run of it (a crashed one's too)
};

struct Report {
  bool ended = false;              // every client finished within the modelled limit
  std::string stalled;             // not ended because the clock crawled (a thread looping without waiting): why
  double modelled_s = 0, wall_s = 0;
  uint64_t frames = 0, instants = 0, crashes = 0, restarts = 0, cut_dropped = 0;
  uint64_t windows = 0;  // the loop's (each at most a lookahead long: Options::threads)
  int threads = 1;
  int ranks = 1;  // MPI ranks (mpirun -np N): the counts and trace hash are the whole run's
  uint64_t trace_hash = 0;         // over every frame of every link: same seed, same hash
  int exit_status = 0;             // the worst client's
  bool has_switch = false;         // and what it did:
  uint64_t switch_forwarded = 0, switch_trimmed = 0, switch_tail_dropped = 0, switch_control_dropped = 0,
           switch_no_route = 0;  // (a fabric's switches summed; each switch's frames forwarded, by name, in file order)
  std::vector<std::pair<std::string, uint64_t>> forwarded_by_switch;
  std::vector<HostReport> hosts;   // in topology order
  std::vector<HistoryEvent> history;  // every recorded call (also in Options::history_path)
  // Coverage: the run's probes (nanopu/probe.h: the programs' own, each
  // declared one at 0 if it never fired) and the runtime's rare paths as
  // "nic.<counter>" (retransmissions, give-ups, refused runs, ... summed
  // over every host's runs, crashed ones too), by name.
  std::vector<std::pair<std::string, uint64_t>> probes;
};

// Checked after a run: "" when it holds, else what broke.
using Invariant = std::function<std::string(const Report& run)>;
struct NamedInvariant {
  std::string name;
  Invariant check;
};
// The run's history is linearizable (nanopu/lincheck.h) against `model`
// ("register", "counter", "versioned"); what broke names the operations
// that cannot be ordered. A search that runs out of its budget is not a
// violation: it says "unknown" on stderr and holds.
[[nodiscard]] Invariant linearizable(std::string model, double seconds = 60);

// Runs the topology file's hosts, each its program of `programs`, to the
// end (every client finished) or the modelled limit; prints each client's
// result on `out`, then calls `inspect` (if set) while every program still
// exists. Errors: a bad topology or host (InvalidArgument, naming the file
// and line), a runtime that cannot start.
[[nodiscard]] absl::StatusOr<Report> run(const std::string& topology_path, const Programs& programs,
                                         const Options& options, FILE* out,
                                         const std::function<void(const Report&)>& inspect = nullptr);

// What a seed's fault schedule may draw (docs/services.md, "Testing your
// service under faults").
struct FaultOptions {
  bool wire = true;             // drops, duplicates, reordering and trimming on hosts' wires
  uint32_t max_cuts = 2;        // partitions that heal
  bool crash_servers = true;    // a server killed and restarted with its state directory
  bool crash_clients = false;   // a client killed (its calls in flight end as info)
  bool aimed_crashes = true;    // half the servers' crashes fall at their first send after their time (Crash::after_send)
  bool power_loss = true;       // half the servers' crashes lose what their DurableFiles did not sync (Crash::power_loss)
  // Clocks (half the seeds): each server's threads' clock runs fast or slow
  // by up to this many parts per million (--clock_drift_ppm): leases and
  // timeouts. 0: never.
  double clock_ppm = 10000;
  bool transports = true;       // NDP or Homa, where a host's line names none
  double window_ms = 40;        // faults fall in the first window_ms of modelled time
  // Liveness (docs/services.md, "Testing your service under faults"): a
  // client that sent requests and had none answered fails the seed; and
  // one still sending quiet_ms after the last fault healed (a cut ended, a
  // crashed server restarted) must have had at least live_calls replies
  // since the heal. 0: not checked.
  uint32_t live_calls = 1;
  double quiet_ms = 10;
  // Swarm testing (Groce et al., "Swarm Testing", ISSTA 2012): each seed
  // turns each kind of fault above on or off (half the seeds each), so a
  // seed with crashes alone, or cuts alone, is as likely as one with all of
  // them: a bug one kind of fault reaches and another would mask is found.
  bool swarm = true;
};

// One seed's schedule, drawn for a topology: what run() is given.
struct FaultSchedule {
  uint64_t seed = 0;
  std::vector<std::pair<std::string, std::string>> host_flags;  // (host, flag) added to its line
  std::vector<Cut> cuts;
  std::vector<Crash> crashes;
  std::string description;      // in words, for a report
};
[[nodiscard]] absl::StatusOr<FaultSchedule> draw_faults(const std::string& topology_path, const Programs& programs,
                                                        uint64_t seed, const FaultOptions& faults);
// A schedule as one line and back: "none", or items joined by "; " —
// "HOST --flag=value" (a wire's --faults, a --transport), "cut
// HOST@FROM_MS+FOR_MS", "crash HOST@AT_MS[+DOWN_MS][/after-send][/power-loss]"
// (no DOWN: for good; Crash::after_send, Crash::power_loss) —
// the times exact (17 digits), so a printed schedule replays its run.
// parse_schedule's errors name the item.
[[nodiscard]] std::string format_schedule(const FaultSchedule& f);
[[nodiscard]] absl::StatusOr<FaultSchedule> parse_schedule(std::string_view text);

struct SeedOutcome {
  uint64_t seed = 0;
  bool passed = false;
  std::string why;              // the first invariant broken, or the run's error
  FaultSchedule faults;
  Report report;                // without its program objects (they are gone)
  std::string replay;           // the command that replays it alone
  // A failing seed's schedule shrunk (Campaign::shrink): the fewest of its
  // faults (wires, cuts, crashes) with which it still fails the same check.
  bool shrunk = false;
  FaultSchedule shrunk_faults;
  size_t faults_before = 0, faults_after = 0;  // the drawn schedule's faults, the shrunk one's
  int shrink_runs = 0;
  bool shrink_exhausted = false;  // stopped at Campaign::shrink_runs: small, perhaps not smallest
  std::string shrunk_replay;    // the command that replays the shrunk schedule
};

struct Campaign {
  uint64_t first_seed = 1, seeds = 100;
  FaultOptions faults;
  std::vector<NamedInvariant> invariants;  // besides the built-in ones (below)
  std::string history_dir;      // each seed's history as DIR/seed-N.jsonl; "" none
  std::string check_model;      // each seed's history checked for linearizability against it; "" none
  uint64_t replay_every = 0;    // every Nth seed run twice: it must give the same trace hash
  bool verbose = false;         // every seed's outcome, and a failure's schedule
  bool stop_at_failure = false; // end at the first failing seed
  // Every seed runs this schedule (parse_schedule's text) instead of
  // drawing one: a shrunk schedule's replay. "": drawn.
  std::string schedule;
  // A failing seed's schedule shrunk by delta debugging, at most this many
  // runs each (0: not shrunk).
  int shrink_runs = 64;
  bool buggify = true;          // nanopu/buggify.h's sites on in every seed's run
  std::string replay_prefix;    // how to run this binary again ("./my-service dst TOPO")
};

// The liveness check a campaign makes after each run (FaultOptions above):
// "" when every client that was up made progress, else which did not.
// `cuts` and `crashes`: every fault the run had (the schedule's and the
// run's own).
[[nodiscard]] std::string liveness(const Report& run, const std::vector<Cut>& cuts,
                                   const std::vector<Crash>& crashes, const FaultOptions& faults);

// Seed after seed: the schedule drawn, the run, the built-in invariants
// (the run ended; no client saw a wrong or duplicated reply; liveness) and the
// campaign's; a failing seed prints the command that replays it. Returns
// each seed's outcome; `out` gets a line per failure and a summary.
[[nodiscard]] absl::StatusOr<std::vector<SeedOutcome>> run_campaign(const std::string& topology_path,
                                                                     const Programs& programs, const Options& base,
                                                                     const Campaign& campaign, FILE* out);

}  // namespace nanopu::sim
