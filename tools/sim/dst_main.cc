// nanopu-dst: deterministic simulation testing of the replicated services
// (tools/sim/dst.h): seed after seed, a cluster's real code under a fault
// schedule drawn from the seed, invariants checked after each run. A failing
// seed prints the command that replays it alone.
#include <stdlib.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "nanopu/flags.h"
#include "runtime/loadgen/load_flags.h"
#include "runtime/platform/eal.h"
#include "tools/sim/dst.h"

ABSL_FLAG(std::string, services, "raft,chain,kv", "The services to test, in turn: raft, chain, kv.");
ABSL_FLAG(uint64_t, first_seed, 1, "The first seed.");
ABSL_FLAG(uint64_t, seeds, 100, "How many seeds, from --first_seed (each runs one service, in turn).");
ABSL_FLAG(uint64_t, replay_every, 0,
          "Also run every Nth seed a second time, alone, and fail unless it replays to the same trace "
          "hash (0: none): one seed is one run, event for event.");
ABSL_FLAG(bool, verbose, false, "Print every seed's faults and outcome, and a failing run's logs.");

namespace {

struct Tally {
  uint64_t runs = 0, passed = 0, cut_dropped = 0, frames = 0, leader_terms = 0, replayed = 0, restarts = 0;
  double modelled_s = 0;
};

}  // namespace

int main(int argc, char** argv) {
  nanopu::init_flags_usage(
      "deterministic simulation testing: replicated services under seeded faults.\n"
      "  nanopu-dst [--services=raft,chain,kv] [--first_seed=1] [--seeds=100] [--verbose]\n"
      "Each seed runs one service's real code (nanopu-server's and nanopu-loadgen's programs) on\n"
      "every host of a small cluster on one modelled clock, with drops, duplicates, reordering and\n"
      "trimming on the hosts' wires, hosts cut off and healed, a Raft server killed and restarted\n"
      "from its state file, NDP or Homa; then checks that\n"
      "every request was answered exactly once and right (the clients' references) and, for Raft,\n"
      "one leader per term. Exit status 0: every seed passed; 1: a seed failed (its replay\n"
      "command is printed); 2: usage.");
  std::vector<char*> args = absl::ParseCommandLine(argc, argv);
  if (args.size() != 1) {
    std::fprintf(stderr, "nanopu-dst: takes no arguments (--help)\n");
    return 2;
  }
  std::vector<nanopu::sim::DstService> services;
  for (absl::string_view s : absl::StrSplit(absl::GetFlag(FLAGS_services), ',', absl::SkipEmpty())) {
    if (s == "raft") services.push_back(nanopu::sim::DstService::kRaft);
    else if (s == "chain") services.push_back(nanopu::sim::DstService::kChain);
    else if (s == "kv") services.push_back(nanopu::sim::DstService::kKv);
    else {
      std::fprintf(stderr, "nanopu-dst: --services: '%s' is not raft, chain or kv\n", std::string(s).c_str());
      return 2;
    }
  }
  if (services.empty() || absl::GetFlag(FLAGS_seeds) == 0) {
    std::fprintf(stderr, "nanopu-dst: --services and --seeds must name at least one\n");
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
  // Raft's state files, one directory per run of this program.
  char dir_template[] = "/tmp/nanopu-dst-XXXXXX";
  const char* state_dir = mkdtemp(dir_template);
  if (state_dir == nullptr) {
    std::fprintf(stderr, "nanopu-dst: cannot make a directory in /tmp for Raft's state files\n");
    return 1;
  }
  const bool verbose = absl::GetFlag(FLAGS_verbose);
  const uint64_t first = absl::GetFlag(FLAGS_first_seed), n = absl::GetFlag(FLAGS_seeds);
  Tally tally;
  std::vector<std::string> failures;
  const auto wall0 = std::chrono::steady_clock::now();
  auto next_progress = wall0 + std::chrono::seconds(10);
  for (uint64_t seed = first; seed < first + n; ++seed) {
    const nanopu::sim::DstService service = services[(seed - first) % services.size()];
    const nanopu::sim::DstCase c = nanopu::sim::make_dst_case(service, seed, state_dir);
    const nanopu::sim::DstOutcome o = nanopu::sim::run_dst_case(c, *timing);
    ++tally.runs;
    tally.passed += o.passed;
    tally.cut_dropped += o.cut_dropped;
    tally.restarts += o.restarts;
    tally.frames += o.frames;
    tally.leader_terms += o.leader_terms;
    tally.modelled_s += static_cast<double>(o.modelled_ps) / 1e12;
    if (verbose || !o.passed)
      std::printf("seed %llu %s: %s (%s); trace hash %016llx\n", static_cast<unsigned long long>(seed),
                  nanopu::sim::dst_service_name(service), o.passed ? "passed" : ("FAILED: " + o.why).c_str(),
                  c.faults.c_str(), static_cast<unsigned long long>(o.trace_hash));
    if (!o.passed) {
      failures.push_back(absl::StrFormat("seed %d (%s): %s\n  replay: nanopu-dst --services=%s --first_seed=%d --seeds=1 --verbose",
                                         seed, nanopu::sim::dst_service_name(service), o.why,
                                         nanopu::sim::dst_service_name(service), seed));
      if (verbose) std::printf("--- topology\n%s--- client\n%s--- log\n%s---\n", c.topology.c_str(),
                               o.client_report.c_str(), o.log.c_str());
    }
    if (const uint64_t every = absl::GetFlag(FLAGS_replay_every); every != 0 && (seed - first) % every == 0) {
      const nanopu::sim::DstOutcome again = nanopu::sim::run_dst_case(c, *timing);
      ++tally.replayed;
      if (again.trace_hash != o.trace_hash || again.passed != o.passed)
        failures.push_back(absl::StrFormat("seed %d (%s) did not replay: trace hash %016x, then %016x", seed,
                                           nanopu::sim::dst_service_name(service), o.trace_hash, again.trace_hash));
    }
    if (std::chrono::steady_clock::now() >= next_progress) {
      next_progress += std::chrono::seconds(10);
      std::fprintf(stderr, "nanopu-dst: %llu of %llu seeds, %zu failed\n", static_cast<unsigned long long>(tally.runs),
                   static_cast<unsigned long long>(n), failures.size());
    }
  }
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  std::printf("nanopu-dst: %llu seeds from %llu: %llu passed, %zu failed; %.1f modelled s in %.1f s of wall time, "
              "%llu frames, %llu lost on cut links, %llu servers restarted, %llu Raft terms with a leader; %llu replayed\n",
              static_cast<unsigned long long>(tally.runs), static_cast<unsigned long long>(first),
              static_cast<unsigned long long>(tally.passed), failures.size(), tally.modelled_s, wall_s,
              static_cast<unsigned long long>(tally.frames), static_cast<unsigned long long>(tally.cut_dropped),
              static_cast<unsigned long long>(tally.restarts),
              static_cast<unsigned long long>(tally.leader_terms), static_cast<unsigned long long>(tally.replayed));
  for (const std::string& f : failures) std::printf("%s\n", f.c_str());
  rmdir(state_dir);
  return failures.empty() ? 0 : 1;
}
