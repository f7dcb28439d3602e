// nanopu-bench-rpc: one whole RPC — a request's DATA in (carrying the ACK of
// the reply before it), the request delivered, its reply framed out — its
// nanoseconds and its instructions, through the NDP transport alone and
// through a whole host stepped on one thread (issue 69 item 7). Each beside
// a reference doing the same peer work in the same run; the figure is the
// difference. Instructions come from valgrind's callgrind (this VM has no
// PMU): the program runs itself under it, one loop at a time, and counts
// only the RPCs (callgrind's client requests around them). Instructions
// repeat where the VM's times move 2x.
#include <rte_cycles.h>
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#else  // no valgrind headers (deploy/setup.sh installs them): the ns column alone
#define CALLGRIND_START_INSTRUMENTATION
#define CALLGRIND_ZERO_STATS
#define CALLGRIND_STOP_INSTRUMENTATION
#endif

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/str_cat.h"
#include "bench/bench_table.h"
#include "bench/rpc/rpc_rigs.h"
#include "nanopu/flags.h"
#include "runtime/platform/eal.h"

ABSL_FLAG(uint64_t, rpcs, 200000, "RPCs per timed run of each loop.");
ABSL_FLAG(uint32_t, runs, 5, "Timed runs of each loop, alternated; the median is reported.");
ABSL_FLAG(bool, instructions, true,
          "Also count each loop's instructions per RPC under valgrind's callgrind (a few seconds each).");
ABSL_FLAG(uint64_t, instruction_rpcs, 20000, "RPCs each loop runs under callgrind.");
ABSL_FLAG(std::string, json, "bench-rpc.json", "Write every row here as JSON ('' = don't).");
ABSL_FLAG(std::string, count_loop, "",
          "Internal: run this loop (transport, transport-ref, host, host-ref, idle-turn) for --instruction_rpcs under "
          "callgrind's instrumentation and exit.");

namespace nanopu::bench {
namespace {

constexpr uint64_t kWarmup = 2000;

bool init_eal() {
  EalParams c;
  c.lcores = {0};
  c.huge = HugePages::kOff;
  c.eal_log_level = 1;
  return eal_init(c).ok();
}

// Under callgrind: the loop's RPCs alone instrumented.
int count_one(RpcLoop which) {
  absl::StatusOr<std::unique_ptr<RpcRig>> rig = make_rpc_rig(which);
  if (!rig.ok()) {
    std::fprintf(stderr, "nanopu-bench-rpc: %s\n", std::string(rig.status().message()).c_str());
    return 1;
  }
  (*rig)->run(kWarmup);
  const uint64_t n = absl::GetFlag(FLAGS_instruction_rpcs), before = (*rig)->answered();
  CALLGRIND_START_INSTRUMENTATION;
  CALLGRIND_ZERO_STATS;
  (*rig)->run(n);
  CALLGRIND_STOP_INSTRUMENTATION;
  if ((*rig)->answered() - before != n) {
    std::fprintf(stderr, "nanopu-bench-rpc: %s: %llu of %llu RPCs answered\n", rpc_loop_name(which),
                 static_cast<unsigned long long>((*rig)->answered() - before), static_cast<unsigned long long>(n));
    return 1;
  }
  return 0;
}

// Instructions per RPC of `which`, from a callgrind run of this program; <0: failed.
double instructions_per_rpc(RpcLoop which) {
  const std::string out = absl::StrCat("/tmp/nanopu-bench-rpc-", getpid(), "-", rpc_loop_name(which), ".cg");
  const std::string cmd = absl::StrCat("valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file=", out,
                                       " /proc/", getpid(), "/exe --count_loop=", rpc_loop_name(which),
                                       " --instruction_rpcs=", absl::GetFlag(FLAGS_instruction_rpcs), " >/dev/null 2>&1");
  std::fprintf(stderr, "  callgrind: %s\n", rpc_loop_name(which));
  const int rc = std::system(cmd.c_str());
  std::ifstream f(out);
  std::string line;
  double total = -1;
  while (std::getline(f, line))
    if (line.rfind("summary:", 0) == 0 || line.rfind("totals:", 0) == 0) total = std::atof(line.c_str() + line.find(':') + 1);
  std::remove(out.c_str());
  if (rc != 0 || total < 0) {
    std::fprintf(stderr, "nanopu-bench-rpc: callgrind run of %s failed (exit %d; is valgrind installed?)\n",
                 rpc_loop_name(which), rc);
    return -1;
  }
  return total / static_cast<double>(absl::GetFlag(FLAGS_instruction_rpcs));
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

int main_impl() {
  if (const std::string loop = absl::GetFlag(FLAGS_count_loop); !loop.empty()) {
    RpcLoop which{};
    if (!parse_rpc_loop(loop, &which)) {
      std::fprintf(stderr, "nanopu-bench-rpc: --count_loop=%s: not transport, transport-ref, host, host-ref or idle-turn\n", loop.c_str());
      return 2;
    }
    return init_eal() ? count_one(which) : 1;
  }
  if (!init_eal()) return 1;
  std::map<RpcLoop, std::unique_ptr<RpcRig>> rigs;
  for (RpcLoop l : kRpcLoops) {
    absl::StatusOr<std::unique_ptr<RpcRig>> r = make_rpc_rig(l);
    if (!r.ok()) {
      std::fprintf(stderr, "nanopu-bench-rpc: %s\n", std::string(r.status().message()).c_str());
      return 1;
    }
    (*r)->run(kWarmup);
    rigs[l] = std::move(*r);
  }
  const uint64_t n = absl::GetFlag(FLAGS_rpcs);
  std::map<RpcLoop, std::vector<double>> ns;
  for (uint32_t run = 0; run < absl::GetFlag(FLAGS_runs); ++run)
    for (RpcLoop l : kRpcLoops) {
      const uint64_t before = rigs[l]->answered(), t0 = rte_rdtsc();
      rigs[l]->run(n);
      const uint64_t t1 = rte_rdtsc();
      if (rigs[l]->answered() - before != n) {
        std::fprintf(stderr, "nanopu-bench-rpc: %s: %llu of %llu RPCs answered\n", rpc_loop_name(l),
                     static_cast<unsigned long long>(rigs[l]->answered() - before), static_cast<unsigned long long>(n));
        return 1;
      }
      ns[l].push_back(static_cast<double>(t1 - t0) * 1e9 / static_cast<double>(rte_get_tsc_hz()) / static_cast<double>(n));
    }
  rigs.clear();
  std::vector<Row> rows;
  auto pair = [&](const std::string& what, RpcLoop l, RpcLoop ref, const std::string& ref_name, const std::string& target,
                  double target_ns) {
    const double v = median(ns[l]), r = median(ns[ref]);
    rows.push_back({absl::StrCat("RPC, ", what), v, "ns", ref_name, r, "", true, true, false});
    Row own{absl::StrCat("  ", what, "'s own (less the reference)"), v - r, "ns", "", 0, target, v - r <= target_ns, true, false};
    rows.push_back(own);
  };
  pair("NDP transport", RpcLoop::kTransport, RpcLoop::kTransportRef, "the peer's packets, made and freed",
       "<= 40 ns", 40);
  pair("whole host, one thread", RpcLoop::kHost, RpcLoop::kHostRef, "the peer against a reflecting port", "", 1e18);
  const double idle = median(ns[RpcLoop::kIdleTurn]);
  rows.push_back({"idle turn of a shared core (no RPC)", idle, "ns", "", 0, "<= 30 ns", idle <= 30, true, false});
  if (absl::GetFlag(FLAGS_instructions)) {
    std::map<RpcLoop, double> ir;
    for (RpcLoop l : kRpcLoops) ir[l] = instructions_per_rpc(l);
    auto ipair = [&](const std::string& what, RpcLoop l, RpcLoop ref, const std::string& ref_name) {
      if (ir[l] < 0 || ir[ref] < 0) return;
      rows.push_back({absl::StrCat("RPC, ", what), ir[l], "instr", ref_name, ir[ref], "", true, true, false});
      rows.push_back({absl::StrCat("  ", what, "'s own"), ir[l] - ir[ref], "instr", "", 0, "", true, true, false});
    };
    ipair("NDP transport", RpcLoop::kTransport, RpcLoop::kTransportRef, "the peer's packets (callgrind)");
    ipair("whole host, one thread", RpcLoop::kHost, RpcLoop::kHostRef, "the peer, reflected (callgrind)");
    if (ir[RpcLoop::kIdleTurn] >= 0)
      rows.push_back({"idle turn of a shared core (no RPC)", ir[RpcLoop::kIdleTurn], "instr", "", 0, "", true, true, false});
  }
  print_table("nanopu-bench-rpc: one whole RPC (64-byte request and reply)", rows);
  if (const std::string j = absl::GetFlag(FLAGS_json); !j.empty()) {
    if (!write_json(j, "nanopu-bench-rpc", rows)) {
      std::fprintf(stderr, "nanopu-bench-rpc: cannot write %s\n", j.c_str());
      return 1;
    }
    std::printf("rows written to %s\n", j.c_str());
  }
  return 0;
}

}  // namespace
}  // namespace nanopu::bench

int main(int argc, char** argv) {
  nanopu::init_flags_usage(
      "one whole RPC (DATA in, reply out, ACK in) through the NDP transport and through a whole host on\n"
      "one thread: ns and (under valgrind's callgrind) instructions per RPC, each beside a reference doing\n"
      "the peer's own work; and an idle turn of the same host (bench/README.md).",
      {"bench/rpc/"});
  absl::ParseCommandLine(argc, argv);
  return nanopu::bench::main_impl();
}
