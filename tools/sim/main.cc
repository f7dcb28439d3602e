// nanopu-sim: every host of a topology in one process, on one modelled
// clock (docs/design.md §11). Each host is the real runtime — its NIC
// core's code and its threads' fibers under the HTS stand-in — running its
// real program (nanopu-server's service, nanopu-loadgen's client) with the
// flags the topology gives it; links and the switch are modelled. No wall
// clock decides anything: one seed and one binary give one run, event for
// event, and the trace hash printed at the end says so.
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "nanopu/flags.h"
#include "runtime/loadgen/load_flags.h"
#include "runtime/platform/eal.h"
#include "tools/sim/simulation.h"
#include "tools/sim/topology.h"

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
          "How far the clock moves when no frame or event is due sooner: timers fire at most this late.");
ABSL_FLAG(double, modelled_limit_s, 60, "Give up (exit 1) if the load generators have not finished by this modelled time.");
ABSL_FLAG(std::string, cut, "",
          "Partitions that heal: HOST@FROM_MS+FOR_MS[,...] cuts HOST's link from FROM_MS for FOR_MS "
          "(modelled ms); every frame sent or due to arrive meanwhile is lost, both ways. "
          "E.g. --cut=r0@500+50 isolates r0 for 50 ms.");
ABSL_FLAG(std::string, crash, "",
          "Servers crashed and restarted: HOST@AT_MS+DOWN_MS[,...] kills HOST's process at AT_MS "
          "(modelled ms; frames to it are lost) and starts it again DOWN_MS later as a new process "
          "(a new incarnation, its flags read again); HOST@AT_MS leaves it down.");
ABSL_FLAG(bool, sim_progress, true, "A progress line on stderr every 5 s of wall time.");
ABSL_FLAG(bool, poll_every_host, false,
          "Poll every host at every instant, not only when a frame, an event of its own or one of "
          "its cores' work is due: slower, and the same run (a check that a host's skipped polls "
          "change nothing).");
ABSL_FLAG(std::string, charge, "counted",
          "Modelled time for the hosts' work: 'counted' (the NIC's stages as latencies at each port, and "
          "each core's work — per message, per word, per thread switch, and Thread::compute() — from the "
          "--timing_params set, default osdi21) or 'none' (a host's code takes no time: the wires' and "
          "the switch's alone), or 'measured' (counted, and besides each thread's own code between its "
          "API calls, as long as it took on this machine: compute-heavy services, but not replayable).");

namespace {

// A list "HOST@FROM_MS+FOR_MS,..." (--cut, --crash) as (host, from, until)
// in ps; with `open_ended`, "HOST@FROM_MS" too (until 0: for good).
struct HostWindow {
  std::string host;
  uint64_t from_ps = 0, until_ps = 0;
};
absl::StatusOr<std::vector<HostWindow>> parse_windows(const char* flag, const std::string& text, bool open_ended) {
  std::vector<HostWindow> out;
  constexpr double kMaxMs = 1e9;  // 11 days of modelled time: anything longer is a typo
  auto ms_ok = [](double v) { return std::isfinite(v) && v >= 0 && v <= kMaxMs; };
  for (absl::string_view item : absl::StrSplit(text, ',', absl::SkipEmpty())) {
    const size_t at = item.find('@');
    const size_t plus = at == absl::string_view::npos ? at : item.find('+', at);  // plain decimals: no exponents
    const bool has_for = plus != absl::string_view::npos;
    double from_ms = 0, for_ms = 0;
    if (at == absl::string_view::npos || at == 0 || (!has_for && !open_ended) ||
        !absl::SimpleAtod(item.substr(at + 1, has_for ? plus - at - 1 : absl::string_view::npos), &from_ms) ||
        (has_for && (!absl::SimpleAtod(item.substr(plus + 1), &for_ms) || !ms_ok(for_ms) || for_ms == 0)) ||
        !ms_ok(from_ms))
      return absl::InvalidArgumentError(absl::StrCat("--", flag, ": '", item, "' is not HOST@FROM_MS+FOR_MS",
                                                     open_ended ? " or HOST@FROM_MS" : "",
                                                     " (0 <= FROM_MS, 0 < FOR_MS, each at most 1e9)"));
    const auto from_ps = static_cast<uint64_t>(from_ms * 1e9);
    out.push_back({std::string(item.substr(0, at)), from_ps, has_for ? from_ps + static_cast<uint64_t>(for_ms * 1e9) : 0});
  }
  return out;
}

int fail(const std::string& why, int code) {
  std::fprintf(stderr, "nanopu-sim: %s\n", why.c_str());
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  nanopu::init_flags_usage(
      "run every host of a topology in one process on one modelled clock.\n"
      "  nanopu-sim deploy/netns/examples/echo-3hosts.topo [--sim_seed=N]\n"
      "The topology is deploy/netns/run.sh's (deploy/netns/topology.py has the format); each host\n"
      "runs its program's real code with its flags there. Prints each load generator's result\n"
      "(its times are modelled) and the run's trace hash. Exit status: the worst load\n"
      "generator's (0 all answered, 3 some not), 1 a run that did not end, 2 a bad topology.");
  std::vector<char*> args = absl::ParseCommandLine(argc, argv);
  if (args.size() != 2) return fail("expected one topology file (--help)", 2);
  absl::StatusOr<nanopu::sim::Topology> topo = nanopu::sim::read_topology(args[1]);
  if (!topo.ok()) return fail(std::string(topo.status().message()), 2);
  nanopu::sim::SimParams p;
  p.seed = absl::GetFlag(FLAGS_sim_seed);
  p.wire_gbps = absl::GetFlag(FLAGS_wire_gbps);
  p.wire_latency_ns = absl::GetFlag(FLAGS_wire_latency_ns);
  p.switch_latency_ns = absl::GetFlag(FLAGS_switch_latency_ns);
  p.idle_step_ns = absl::GetFlag(FLAGS_idle_step_ns);
  p.modelled_limit_s = absl::GetFlag(FLAGS_modelled_limit_s);
  p.progress = absl::GetFlag(FLAGS_sim_progress);
  p.poll_every_host = absl::GetFlag(FLAGS_poll_every_host);
  absl::StatusOr<std::vector<HostWindow>> cuts = parse_windows("cut", absl::GetFlag(FLAGS_cut), false);
  if (!cuts.ok()) return fail(std::string(cuts.status().message()), 2);
  for (const HostWindow& w : *cuts) p.cuts.push_back({w.host, w.from_ps, w.until_ps});
  absl::StatusOr<std::vector<HostWindow>> crashes = parse_windows("crash", absl::GetFlag(FLAGS_crash), true);
  if (!crashes.ok()) return fail(std::string(crashes.status().message()), 2);
  for (const HostWindow& w : *crashes) p.crashes.push_back({w.host, w.from_ps, w.until_ps});
  const std::string charge = absl::GetFlag(FLAGS_charge);
  if (charge != "counted" && charge != "none" && charge != "measured")
    return fail("--charge: counted, measured or none", 2);
  p.counted = charge != "none";
  p.measured = charge == "measured";
  absl::StatusOr<nanopu::model::TimingParams> timing = nanopu::loadgen::timing_from_flags();
  if (!timing.ok()) return fail(std::string(timing.status().message()), 2);
  p.timing = *timing;
  if (!(p.wire_gbps > 0) || p.wire_latency_ns < 0 || p.switch_latency_ns < 0 || !(p.idle_step_ns >= 0.001) ||
      !(p.modelled_limit_s > 0))
    return fail("--wire_gbps, --idle_step_ns (>= 0.001) and --modelled_limit_s must be > 0; latencies >= 0", 2);
  // One EAL for every host: one lcore, no hugepages, room for their pools.
  nanopu::EalParams eal;
  eal.huge = nanopu::HugePages::kOff;
  eal.telemetry = false;
  eal.no_huge_memory_mb = 256 + 48 * topo->hosts.size();
  if (absl::Status s = nanopu::eal_init(eal); !s.ok()) return fail(std::string(s.message()), 1);
  nanopu::sim::Simulation sim(*topo, p);
  if (absl::Status s = sim.build(); !s.ok()) return fail(std::string(s.message()), s.code() == absl::StatusCode::kInvalidArgument ? 2 : 1);
  const nanopu::sim::SimReport r = sim.run(stdout);
  const double modelled_s = static_cast<double>(r.modelled_ps) / 1e12;
  const std::string time_is = p.measured ? "time counted (" + p.timing.name + ") and measured (not replayable)"
                              : p.counted ? "time counted (" + p.timing.name + ")"
                                          : "wires' time only (--charge=none)";
  std::printf("nanopu-sim: %zu hosts, seed %llu, %s: modelled %.6f s in %.2f s of wall time (%.1fx), %llu frames "
              "(%.0f/s of wall time), %llu instants; trace hash %016llx\n",
              topo->hosts.size(), static_cast<unsigned long long>(p.seed), time_is.c_str(), modelled_s, r.wall_s,
              modelled_s > 0 ? r.wall_s / modelled_s : 0.0, static_cast<unsigned long long>(r.frames),
              r.wall_s > 0 ? static_cast<double>(r.frames) / r.wall_s : 0.0,
              static_cast<unsigned long long>(r.instants), static_cast<unsigned long long>(r.trace_hash));
  if (r.has_switch) {
    const nanopu::model::SimSwitchCounters& c = r.switch_counters;
    std::printf("nanopu-sim: switch forwarded %llu, trimmed %llu, tail-dropped %llu, control-dropped %llu, no route %llu\n",
                static_cast<unsigned long long>(c.forwarded), static_cast<unsigned long long>(c.trimmed),
                static_cast<unsigned long long>(c.tail_dropped), static_cast<unsigned long long>(c.control_dropped),
                static_cast<unsigned long long>(c.no_route));
  }
  if (!p.crashes.empty())
    std::printf("nanopu-sim: %llu crashes, %llu restarts\n", static_cast<unsigned long long>(r.crashes),
                static_cast<unsigned long long>(r.restarts));
  if (!p.cuts.empty())
    std::printf("nanopu-sim: %llu frames lost on cut links\n", static_cast<unsigned long long>(r.cut_dropped));
  if (!r.ended)
    return fail(absl::StrFormat("the load generators had not finished after %.3f modelled s (--modelled_limit_s)",
                                p.modelled_limit_s),
                1);
  return r.exit_status;
}
