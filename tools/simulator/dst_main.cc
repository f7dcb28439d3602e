// nanopu-dst: deterministic simulation testing of the replicated services
// (tools/simulator/dst.h): seed after seed, a cluster's real code under a fault
// schedule drawn from the seed, invariants checked after each run. A failing
// seed prints the command that replays it alone.
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <cstdio>
#include <string>
#include <vector>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "nanopu/flags.h"
#include "runtime/client_main/load_flags.h"
#include "runtime/platform/eal.h"
#include "tools/simulator/dst.h"

ABSL_FLAG(std::string, services, "raft,chain,kv", "The services to test, in turn: raft, chain, kv.");
ABSL_FLAG(bool, dst_raft_sync, true,
          "Raft servers sync their state file before relying on it (--raft_sync); false: what a power "
          "loss (half of Raft's crashes) does to a Raft that does not.");
// The campaign flags every simulation binary shares (runtime/simulation/sim_flags.cc).
ABSL_DECLARE_FLAG(uint64_t, first_seed);
ABSL_DECLARE_FLAG(uint64_t, seeds);
ABSL_DECLARE_FLAG(uint64_t, replay_every);
ABSL_DECLARE_FLAG(bool, verbose);
ABSL_DECLARE_FLAG(bool, dst_buggify);
ABSL_DECLARE_FLAG(std::string, history);  // runtime/flags: here a directory, one history per seed

namespace {

using nanopu::sim::DstCase;
using nanopu::sim::DstOutcome;
using nanopu::sim::DstService;

struct Tally {
  uint64_t runs = 0, passed = 0, cut_dropped = 0, frames = 0, leader_terms = 0, replayed = 0, restarts = 0;
  uint64_t chain_reconfigs = 0;
  uint64_t client_crashes = 0, histories = 0, events = 0;
  double modelled_s = 0, longest_check_s = 0;
  std::vector<std::string> failures;
  void add(const DstOutcome& o) {
    ++runs;
    passed += o.passed;
    cut_dropped += o.cut_dropped;
    restarts += o.restarts;
    frames += o.frames;
    leader_terms += o.leader_terms;
    chain_reconfigs += o.chain_reconfigs;
    client_crashes += o.client_crashes;
    histories += o.history_events != 0;
    events += o.history_events;
    longest_check_s = std::max(longest_check_s, o.check_s);
    modelled_s += static_cast<double>(o.modelled_ps) / 1e12;
  }
};

// --services as the list it names; empty (said on stderr) when it is wrong.
std::vector<DstService> parse_services(const std::string& text) {
  std::vector<DstService> services;
  for (absl::string_view s : absl::StrSplit(text, ',', absl::SkipEmpty())) {
    if (s == "raft") services.push_back(DstService::kRaft);
    else if (s == "chain") services.push_back(DstService::kChain);
    else if (s == "kv") services.push_back(DstService::kKv);
    else {
      std::fprintf(stderr, "nanopu-dst: --services: '%s' is not raft, chain or kv\n", std::string(s).c_str());
      return {};
    }
  }
  if (services.empty()) std::fprintf(stderr, "nanopu-dst: --services must name at least one\n");
  return services;
}

// One seed: its case run, checked, told (when it fails or with --verbose),
// and replayed in this process every --replay_every seeds.
void run_seed(uint64_t seed, uint64_t first, DstService service, const char* state_dir,
              const nanopu::model::TimingParams& timing, Tally* tally) {
  const char* name = nanopu::sim::dst_service_name(service);
  DstCase c = nanopu::sim::make_dst_case(service, seed, state_dir, absl::GetFlag(FLAGS_dst_raft_sync));
  c.buggify = absl::GetFlag(FLAGS_dst_buggify);
  if (const std::string dir = absl::GetFlag(FLAGS_history); !dir.empty())
    c.history_path = absl::StrFormat("%s/seed-%d-%s.jsonl", dir, seed, name);
  const DstOutcome o = nanopu::sim::run_dst_case(c, timing);
  tally->add(o);
  const bool verbose = absl::GetFlag(FLAGS_verbose);
  if (verbose || !o.passed)
    std::printf("seed %llu %s: %s (%s); trace hash %016llx\n", static_cast<unsigned long long>(seed), name,
                o.passed ? "passed" : ("FAILED: " + o.why).c_str(), c.faults.c_str(),
                static_cast<unsigned long long>(o.trace_hash));
  if (!o.passed) {
    tally->failures.push_back(absl::StrFormat(
        "seed %d (%s): %s\n  replay: nanopu-dst --services=%s --first_seed=%d --seeds=1%s%s --verbose", seed, name,
        o.why, name, seed, c.buggify ? "" : " --dst_buggify=false", c.raft_sync ? "" : " --dst_raft_sync=false"));
  }
  // A failed seed with --verbose, or any one seed run alone with it: the
  // whole of it.
  if (verbose && (!o.passed || absl::GetFlag(FLAGS_seeds) == 1))
    std::printf("--- topology\n%s--- client\n%s--- log\n%s---\n", c.topology.c_str(), o.client_report.c_str(),
                o.log.c_str());
  if (const uint64_t every = absl::GetFlag(FLAGS_replay_every); every != 0 && (seed - first) % every == 0) {
    const DstOutcome again = nanopu::sim::run_dst_case(c, timing);
    ++tally->replayed;
    if (again.trace_hash != o.trace_hash || again.passed != o.passed)
      tally->failures.push_back(absl::StrFormat("seed %d (%s) did not replay: trace hash %016x, then %016x", seed, name,
                                                o.trace_hash, again.trace_hash));
  }
}

void print_summary(const Tally& t, uint64_t first, double wall_s) {
  std::printf("nanopu-dst: %llu seeds from %llu: %llu passed, %zu failed; %.1f modelled s in %.1f s of wall time, "
              "%llu frames, %llu lost on cut links, %llu servers restarted, %llu clients crashed, %llu Raft terms "
              "with a leader, %llu chain reconfigurations; %llu histories (%llu events) checked linearizable, the longest check %.2f ms; "
              "%llu replayed\n",
              static_cast<unsigned long long>(t.runs), static_cast<unsigned long long>(first),
              static_cast<unsigned long long>(t.passed), t.failures.size(), t.modelled_s, wall_s,
              static_cast<unsigned long long>(t.frames), static_cast<unsigned long long>(t.cut_dropped),
              static_cast<unsigned long long>(t.restarts), static_cast<unsigned long long>(t.client_crashes),
              static_cast<unsigned long long>(t.leader_terms), static_cast<unsigned long long>(t.chain_reconfigs),
              static_cast<unsigned long long>(t.histories),
              static_cast<unsigned long long>(t.events), t.longest_check_s * 1e3,
              static_cast<unsigned long long>(t.replayed));
  for (const std::string& f : t.failures) std::printf("%s\n", f.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  nanopu::init_flags_usage(
      "deterministic simulation testing: replicated services under seeded faults.\n"
      "  nanopu-dst [--services=raft,chain,kv] [--first_seed=1] [--seeds=100] [--verbose]\n"
      "Each seed runs one service's real code (nanopu-server's and nanopu-loadgen's programs) on\n"
      "every host of a small cluster on one modelled clock, with drops, duplicates, reordering and\n"
      "trimming on the hosts' wires, hosts cut off and healed, a Raft server or a chain replica killed and restarted\n"
      "from its state file, a client killed, NDP or Homa, three clients writing and reading shared\n"
      "keys; then checks that every request was answered exactly once and well-formed, that the\n"
      "run's history (every client's requests) is linearizable, and, for Raft, one leader per term.\n"
      "--history=DIR keeps each seed's history; --verbose prints each seed's faults, and a seed run alone\n(--seeds=1) or failed in full: its topology, its clients' reports and its hosts' log. Exit status 0: every seed passed; 1: a seed failed\n"
      "(its replay command is printed); 2: usage.",
      {"tools/simulator/dst_main.cc", "runtime/simulation/sim_flags.cc", "runtime/flags/program_flags.cc"});
  std::vector<char*> args = nanopu::parse_flags(argc, argv);
  if (args.size() != 1) {
    std::fprintf(stderr, "nanopu-dst: takes no arguments (--help)\n");
    return 2;
  }
  const std::vector<DstService> services = parse_services(absl::GetFlag(FLAGS_services));
  if (services.empty()) return 2;
  if (absl::GetFlag(FLAGS_seeds) == 0) {
    std::fprintf(stderr, "nanopu-dst: --seeds must be at least 1\n");
    return 2;
  }
  absl::StatusOr<nanopu::model::TimingParams> timing = nanopu::loadgen::timing_from_flags();
  if (!timing.ok()) {
    std::fprintf(stderr, "nanopu-dst: %s\n", std::string(timing.status().message()).c_str());
    return 2;
  }
  nanopu::EalParams eal;
  eal.huge = nanopu::HugePages::kOff;
  eal.telemetry = false;
  eal.eal_log_level = 3;
  eal.no_huge_memory_mb = 512;
  if (absl::Status s = nanopu::eal_init(eal); !s.ok()) {
    std::fprintf(stderr, "nanopu-dst: %s\n", std::string(s.message()).c_str());
    return 1;
  }
  if (const std::string dir = absl::GetFlag(FLAGS_history);
      !dir.empty() && mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
    std::fprintf(stderr, "nanopu-dst: --history: cannot make %s: %s\n", dir.c_str(), std::strerror(errno));
    return 2;
  }
  char dir_template[] = "/tmp/nanopu-dst-XXXXXX";  // Raft's state files, one directory per run
  const char* state_dir = mkdtemp(dir_template);
  if (state_dir == nullptr) {
    std::fprintf(stderr, "nanopu-dst: cannot make a directory in /tmp for Raft's state files\n");
    return 1;
  }
  const uint64_t first = absl::GetFlag(FLAGS_first_seed), n = absl::GetFlag(FLAGS_seeds);
  Tally tally;
  const auto wall0 = std::chrono::steady_clock::now();
  auto next_progress = wall0 + std::chrono::seconds(10);
  for (uint64_t seed = first; seed < first + n; ++seed) {
    run_seed(seed, first, services[(seed - first) % services.size()], state_dir, *timing, &tally);
    if (std::chrono::steady_clock::now() >= next_progress) {  // output only: not the runs
      next_progress += std::chrono::seconds(10);
      std::fprintf(stderr, "nanopu-dst: %llu of %llu seeds, %zu failed\n", static_cast<unsigned long long>(tally.runs),
                   static_cast<unsigned long long>(n), tally.failures.size());
    }
  }
  print_summary(tally, first, std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count());
  rmdir(state_dir);
  return tally.failures.empty() ? 0 : 1;
}
