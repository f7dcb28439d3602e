#include "runtime/simulation/sim_flags.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "nanopu/lincheck.h"
#include "nanopu/loadgen.h"
#include "nanopu/program_flags.h"
#include "runtime/simulation/host_window.h"

ABSL_DECLARE_FLAG(std::string, timing_params);  // the load flags' (runtime/client_main)

ABSL_FLAG(uint64_t, sim_seed, 1,
          "The run's seed: when each host boots (within the first microsecond) and every host's "
          "--seed (a client's arrivals, a Raft server's timeouts) where the topology gives none. "
          "Same seed, same binary: same run.");
ABSL_FLAG(double, wire_gbps, 200, "A direct link's rate, Gb/s (a switch's links: its --switch_gbps).");
ABSL_FLAG(double, wire_latency_ns, 43.75, "Every link's latency, ns (nanoPU OSDI'21 §5: 43.75).");
ABSL_FLAG(double, switch_latency_ns, 0,
          "The switch's port-to-port latency, ns, before its output queue (e.g. 300 for Table 2's "
          "one-sided RDMA through a switch).");
ABSL_FLAG(double, idle_step_ns, 1000,
          "A host or switch with nothing due is still polled at each multiple of this (modelled ns): a "
          "safety net for work its next event does not name (timers fire when due).");
ABSL_FLAG(double, modelled_limit_s, 60, "Give up (exit 1) if the clients have not finished by this modelled time.");
ABSL_FLAG(std::string, cut, "",
          "Partitions that heal: HOST@FROM_MS+FOR_MS[,...] cuts HOST's link from FROM_MS for FOR_MS "
          "(modelled ms); every frame sent or due to arrive meanwhile is lost, both ways. "
          "E.g. --cut=r0@500+50 isolates r0 for 50 ms.");
ABSL_FLAG(std::string, crash, "",
          "Hosts crashed and restarted: HOST@AT_MS+DOWN_MS[,...] kills HOST's process at AT_MS "
          "(modelled ms; frames to it are lost) and starts it again DOWN_MS later as a new process "
          "(a new incarnation, its flags read again, its state directory kept); HOST@AT_MS leaves it "
          "down (a client's calls in flight then end as info in the history). /after-send: armed at "
          "AT_MS, the crash falls the moment HOST next sends a message (between a reply and the next "
          "step). /power-loss: the machine, not only the process: its nanopu::DurableFiles keep what "
          "they synced and a prefix of the rest. E.g. --crash=prim@12+5/after-send/power-loss.");
ABSL_FLAG(bool, sim_progress, true, "A progress line on stderr every 5 s of wall time.");
ABSL_FLAG(bool, poll_every_host, false,
          "Poll every host at every instant, not only when a frame, an event of its own or one of "
          "its cores' work is due: slower, and the same run (a check that a host's skipped polls "
          "change nothing).");
ABSL_FLAG(int32_t, sim_threads, 1,
          "Threads to run the hosts and switches on, each a share of them (consecutive in the topology), "
          "in windows as long as the shortest link's latency and a minimal frame: the same run, trace hash "
          "and all, for any count (at most the topology's hosts and switches).");
ABSL_FLAG(std::string, charge, "counted",
          "Modelled time for the hosts' work: 'counted' (the NIC's stages as latencies at each port, and "
          "each core's work — per message, per word, per thread switch, and Thread::compute() — from the "
          "--timing_params set, default osdi21) or 'none' (a host's code takes no time: the wires' and "
          "the switch's alone), or 'measured' (counted, and besides each thread's own code between its "
          "API calls, as long as it took on this machine: compute-heavy services, but not replayable).");
ABSL_FLAG(uint64_t, first_seed, 1, "A fault campaign's first seed.");
ABSL_FLAG(uint64_t, seeds, 100, "How many seeds a fault campaign runs, from --first_seed.");
ABSL_FLAG(uint64_t, replay_every, 0,
          "Also run every Nth seed a second time, alone, and fail unless it replays to the same trace "
          "hash (0: none): one seed is one run, event for event.");
ABSL_FLAG(bool, verbose, false, "Print every seed's faults and outcome, and a failing run's logs.");
ABSL_FLAG(bool, stop_at_failure, false, "A fault campaign ends at its first failing seed.");
ABSL_FLAG(std::string, schedule, "",
          "Every seed runs this fault schedule instead of drawing one (a failing seed's shrunk schedule, as "
          "printed: 'none', or 'HOST --faults=...; cut HOST@FROM_MS+FOR_MS; crash HOST@AT_MS+DOWN_MS[/after-send][/power-loss]; ...').");
ABSL_FLAG(int32_t, shrink_runs, 64,
          "A failing seed's fault schedule is shrunk to the fewest faults that still fail the same check, in at "
          "most this many runs (0: not shrunk).");
ABSL_FLAG(std::string, invariants, "",
          "Check only these of the binary's own invariants (comma-separated names, as its dst --help lists "
          "them); the built-in ones always. Empty: all of them.");
ABSL_FLAG(bool, buggify, false,
          "sim: nanopu::buggify()'s sites on (nanopu/buggify.h), drawn from --sim_seed. (dst: --dst_buggify.)");
ABSL_FLAG(bool, dst_buggify, true, "A campaign's runs with nanopu::buggify()'s sites on (nanopu/buggify.h).");
ABSL_FLAG(bool, fault_swarm, true,
          "Swarm testing: each seed turns each kind of fault (wires, cuts, crashes) on or off, half the seeds each.");
ABSL_FLAG(bool, fault_wire, true, "Faults: drops, duplicates, reordering and trimming on hosts' wires (--faults).");
ABSL_FLAG(uint32_t, fault_cuts, 2, "Faults: at most this many partitions that heal, each seed.");
ABSL_FLAG(bool, fault_aimed_crashes, true,
          "Half the servers' crashes aimed: armed at their drawn time, falling the moment the server "
          "next sends (between its reply and its next step; --crash=.../after-send).");
ABSL_FLAG(double, fault_clock_ppm, 10000,
          "Half the seeds, each server's threads' clock runs fast or slow by up to this many parts per "
          "million (--clock_drift_ppm: leases, timeouts). 0: never.");
ABSL_FLAG(bool, fault_power_loss, true,
          "Half the servers' crashes lose power: their nanopu::DurableFiles keep what they synced and a "
          "prefix of the rest (--crash=.../power-loss).");
ABSL_FLAG(bool, fault_crash_servers, true,
          "Faults: a server killed and restarted (half the seeds), its state directory kept.");
ABSL_FLAG(bool, fault_crash_clients, false,
          "Faults: a client killed for good (a seed in four): its calls in flight end as info.");
ABSL_FLAG(bool, fault_transports, true, "Faults: NDP or Homa on every host whose line names no --transport.");
ABSL_FLAG(double, fault_window_ms, 40, "Faults fall in the first this many modelled ms of a run.");
ABSL_FLAG(uint32_t, fault_live_calls, 1,
          "Liveness: a client must have this many replies after the last fault heals (if it still sends "
          "--fault_quiet_ms later), and a client none of whose requests was answered fails; 0: not checked.");
ABSL_FLAG(double, fault_quiet_ms, 10,
          "Liveness: a client is judged when it still sent this long after the last fault healed.");
ABSL_FLAG(std::string, check, "",
          "Check the run's history (every client's recorded calls) for linearizability against this model "
          "(nanopu/lincheck.h: register, counter, versioned): a `sim` run exits 1, a `dst` seed fails, when it "
          "is not. Empty: no check.");

namespace nanopu::sim {

absl::StatusOr<Options> options_from_flags() {
  Options o;
  o.seed = absl::GetFlag(FLAGS_sim_seed);
  o.wire_gbps = absl::GetFlag(FLAGS_wire_gbps);
  o.wire_latency_ns = absl::GetFlag(FLAGS_wire_latency_ns);
  o.switch_latency_ns = absl::GetFlag(FLAGS_switch_latency_ns);
  o.idle_step_ns = absl::GetFlag(FLAGS_idle_step_ns);
  o.modelled_limit_s = absl::GetFlag(FLAGS_modelled_limit_s);
  o.progress = absl::GetFlag(FLAGS_sim_progress);
  o.buggify = absl::GetFlag(FLAGS_buggify);
  o.poll_every_host = absl::GetFlag(FLAGS_poll_every_host);
  o.threads = absl::GetFlag(FLAGS_sim_threads);
  if (o.threads < 1 || o.threads > 256) return absl::InvalidArgumentError("--sim_threads must be in [1, 256]");
  if (!(o.wire_gbps > 0) || o.wire_latency_ns < 0 || o.switch_latency_ns < 0 || !(o.idle_step_ns >= 0.001) ||
      !(o.modelled_limit_s > 0))
    return absl::InvalidArgumentError(
        "--wire_gbps, --idle_step_ns (>= 0.001) and --modelled_limit_s must be > 0; latencies >= 0");
  for (absl::string_view item : absl::StrSplit(absl::GetFlag(FLAGS_cut), ',', absl::SkipEmpty())) {
    HostWindow w;
    if (!parse_host_window(item, false, &w))
      return absl::InvalidArgumentError(absl::StrCat("--cut: '", item, "' is not HOST@FROM_MS+FOR_MS",
                                                     " (0 <= FROM_MS, 0 < FOR_MS, each at most 1e9)"));
    o.cuts.push_back({w.host, w.from_ms, w.for_ms});
  }
  for (absl::string_view item : absl::StrSplit(absl::GetFlag(FLAGS_crash), ',', absl::SkipEmpty())) {
    Crash c;
    if (!parse_crash(item, &c))
      return absl::InvalidArgumentError(absl::StrCat("--crash: '", item, "' is not ", kCrashSyntax,
                                                     " (0 <= AT_MS, 0 < DOWN_MS, each at most 1e9)"));
    o.crashes.push_back(std::move(c));
  }
  const std::string charge = absl::GetFlag(FLAGS_charge);
  if (charge == "counted") o.charge = Charge::kCounted;
  else if (charge == "measured") o.charge = Charge::kMeasured;
  else if (charge == "none") o.charge = Charge::kNone;
  else return absl::InvalidArgumentError("--charge: counted, measured or none");
  o.history_path = absl::GetFlag(FLAGS_history);
  o.timing_params = absl::GetFlag(FLAGS_timing_params);
  return o;
}

std::string check_model_flag() { return absl::GetFlag(FLAGS_check); }

std::string invariant_names(const std::vector<NamedInvariant>& all) {
  std::string names;
  for (const NamedInvariant& i : all) absl::StrAppend(&names, names.empty() ? "" : ", ", "'", i.name, "'");
  return names.empty() ? "none" : names;
}

absl::StatusOr<std::vector<NamedInvariant>> chosen_invariants(const std::vector<NamedInvariant>& all) {
  const std::string want = absl::GetFlag(FLAGS_invariants);
  if (want.empty()) return all;
  std::vector<NamedInvariant> out;
  for (absl::string_view name : absl::StrSplit(want, ',', absl::SkipWhitespace())) {
    auto it = std::find_if(all.begin(), all.end(), [&](const NamedInvariant& i) { return i.name == name; });
    if (it == all.end())
      return absl::InvalidArgumentError(absl::StrCat("--invariants: no invariant '", name, "' in this binary (it has ",
                                                     invariant_names(all), ")"));
    out.push_back(*it);
  }
  return out;
}

absl::Status check_model_known(const std::string& model) {
  if (model.empty()) return absl::OkStatus();
  for (const std::string& m : lincheck::model_names())
    if (m == model) return absl::OkStatus();
  return absl::InvalidArgumentError("--check='" + model + "': use register, counter or versioned");
}

absl::StatusOr<Campaign> campaign_from_flags() {
  Campaign c;
  c.first_seed = absl::GetFlag(FLAGS_first_seed);
  c.seeds = absl::GetFlag(FLAGS_seeds);
  if (c.seeds == 0) return absl::InvalidArgumentError("--seeds must be at least 1");
  c.replay_every = absl::GetFlag(FLAGS_replay_every);
  c.verbose = absl::GetFlag(FLAGS_verbose);
  c.stop_at_failure = absl::GetFlag(FLAGS_stop_at_failure);
  c.schedule = absl::GetFlag(FLAGS_schedule);
  if (!c.schedule.empty())
    if (absl::StatusOr<FaultSchedule> f = parse_schedule(c.schedule); !f.ok()) return f.status();
  c.shrink_runs = absl::GetFlag(FLAGS_shrink_runs);
  if (c.shrink_runs < 0 || c.shrink_runs > 100000) return absl::InvalidArgumentError("--shrink_runs must be in [0, 100000]");
  c.faults.swarm = absl::GetFlag(FLAGS_fault_swarm);
  c.buggify = absl::GetFlag(FLAGS_dst_buggify);
  c.history_dir = absl::GetFlag(FLAGS_history);
  c.faults.wire = absl::GetFlag(FLAGS_fault_wire);
  c.faults.max_cuts = absl::GetFlag(FLAGS_fault_cuts);
  c.faults.crash_servers = absl::GetFlag(FLAGS_fault_crash_servers);
  c.faults.aimed_crashes = absl::GetFlag(FLAGS_fault_aimed_crashes);
  c.faults.power_loss = absl::GetFlag(FLAGS_fault_power_loss);
  c.faults.clock_ppm = absl::GetFlag(FLAGS_fault_clock_ppm);
  c.faults.crash_clients = absl::GetFlag(FLAGS_fault_crash_clients);
  c.faults.transports = absl::GetFlag(FLAGS_fault_transports);
  c.faults.window_ms = absl::GetFlag(FLAGS_fault_window_ms);
  c.faults.live_calls = absl::GetFlag(FLAGS_fault_live_calls);
  c.faults.quiet_ms = absl::GetFlag(FLAGS_fault_quiet_ms);
  if (c.faults.live_calls > loadgen::Result::kRecentReplies)
    return absl::InvalidArgumentError(
        absl::StrCat("--fault_live_calls: at most ", loadgen::Result::kRecentReplies, " (the replies a client keeps the times of)"));
  if (!(c.faults.quiet_ms >= 0 && c.faults.quiet_ms <= 1e6))
    return absl::InvalidArgumentError("--fault_quiet_ms must be in [0, 1e6]");
  c.check_model = absl::GetFlag(FLAGS_check);
  if (!(c.faults.window_ms > 0) || c.faults.window_ms > 1e6)
    return absl::InvalidArgumentError("--fault_window_ms must be in (0, 1e6]");
  if (c.faults.max_cuts > 16) return absl::InvalidArgumentError("--fault_cuts: at most 16");
  if (!(c.faults.clock_ppm >= 0 && c.faults.clock_ppm < 500000))
    return absl::InvalidArgumentError("--fault_clock_ppm must be in [0, 500000) (a clock at half or 1.5x speed)");
  if (absl::Status s = check_model_known(c.check_model); !s.ok()) return s;
  return c;
}

}  // namespace nanopu::sim
