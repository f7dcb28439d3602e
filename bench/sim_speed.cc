// nanopu-bench-sim: how fast nanopu-sim runs (issue 57's "Speed"), every
// host its real code: frames and instants a second of wall time, and how
// much slower than real time it runs, for the shipped 81-host incast and
// the Homa paper's 144-host leaf-spine fabric (tools/fabric/leaf_spine.py's
// shape, closed-loop echo), each on one thread beside the smallest
// topology's figure from the same run (two hosts through one switch: the
// ratio says what the topology's size costs a frame), and on two threads
// and two MPI ranks (mpirun -np 2 nanopu-sim) beside its own one-thread
// figure (the speed-ups; the trace hashes must agree, or the bench fails).
//
// Usage: nanopu-bench-sim [--json=FILE] [--fabric_count=N]
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <tuple>
#include <vector>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "bench/bench_table.h"
#include "nanopu/sim.h"
#include "tools/simulator/builtin_programs.h"

// --json is the load generator's flag (its programs are linked in): the rows
// go there, or to bench-sim.json.
ABSL_DECLARE_FLAG(std::string, json);
ABSL_FLAG(int, fabric_count, 200, "Requests per load generator in the 144-host fabric (135 of them).");

namespace {

struct Speed {
  double frames_per_s = 0, instants_per_s = 0, slower_than_real = 0;  // wall time / modelled time
  uint64_t hosts = 0;
  uint64_t trace_hash = 0;
};

// The 144-host fabric: 9 racks of 16 under leaves, 4 spines (the same
// shape tools/fabric/leaf_spine.py writes).
std::string fabric_text(int count) {
  std::string t;
  for (int r = 0; r < 9; ++r) t += absl::StrCat("switch leaf", r, " --switch_gbps=10 --spray\n");
  for (int s = 0; s < 4; ++s) t += absl::StrCat("switch spine", s, " --switch_gbps=40\n");
  for (int r = 0; r < 9; ++r)
    for (int h = 0; h < 16; ++h) {
      t += absl::StrFormat("host r%dh%d 10.0.%d.%d 02:00:00:00:%02x:%02x ", r, h, r + 1, h + 1, r + 1, h + 1);
      t += h == 0 ? "server --app=echo --context=1\n"
                  : absl::StrCat("loadgen --server_ip=10.0.", (r + 1) % 9 + 1, ".1 --server_context=1 --size=1000 "
                                 "--outstanding=1 --count=", count, "\n");
    }
  for (int r = 0; r < 9; ++r) {
    for (int h = 0; h < 16; ++h) t += absl::StrCat("link r", r, "h", h, " leaf", r, "\n");
    for (int s = 0; s < 4; ++s) t += absl::StrCat("link leaf", r, " spine", s, " gbps=40\n");
  }
  return t;
}

constexpr char kTwoHosts[] =
    "switch sw --switch_gbps=10\n"
    "host srv 10.0.0.1 02:00:00:00:00:01 server --app=echo --context=1\n"
    "host cl 10.0.0.2 02:00:00:00:00:02 loadgen --server_ip=10.0.0.1 --size=1000 --outstanding=1 --count=20000\n"
    "link srv sw\nlink cl sw\n";

// mpirun -np 2 nanopu-sim PATH: its summary line's wall time, frames and
// trace hash. False (and why, on stderr) if it did not run.
bool run_ranks(const std::string& path, Speed* s) {
#ifndef NANOPU_MPIEXEC
  (void)path, (void)s;
  std::fprintf(stderr, "nanopu-bench-sim: built without MPI: no 2-rank rows\n");
  return false;
#else
  const std::string cmd = std::string(NANOPU_MPIEXEC) + " --allow-run-as-root --oversubscribe -np 2 " + NANOPU_SIM_BIN +
                          " --sim_progress=false " + path + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return false;
  std::string out;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  const int rc = pclose(p);
  const size_t at = out.find("s of wall time (");
  unsigned long long frames = 0, hash = 0;
  double modelled = 0, wall = 0;
  const size_t line = out.rfind("modelled ", at);
  if (rc != 0 || at == std::string::npos || line == std::string::npos ||
      std::sscanf(out.c_str() + line, "modelled %lf s in %lf", &modelled, &wall) != 2 ||
      std::sscanf(out.c_str() + out.find("x), ", at) + 4, "%llu frames", &frames) != 1 ||
      std::sscanf(out.c_str() + out.rfind("trace hash: ") + 12, "%llx", &hash) != 1 || wall <= 0) {
    std::fprintf(stderr, "nanopu-bench-sim: %s failed:\n%s\n", cmd.c_str(), out.c_str());
    return false;
  }
  s->frames_per_s = static_cast<double>(frames) / wall;
  s->slower_than_real = wall / modelled;
  s->trace_hash = hash;
  std::printf("  %-22s 2 ranks    : %.3f ms modelled in %.2f s of wall time, %llu frames\n",
              path.substr(path.rfind('/') + 1).c_str(), modelled * 1e3, wall, frames);
  return true;
#endif
}

bool run(const std::string& path, Speed* s, int threads = 1) {
  nanopu::sim::Options o;
  o.progress = false;
  o.threads = threads;
  FILE* null = std::fopen("/dev/null", "w");
  absl::StatusOr<nanopu::sim::Report> r = nanopu::sim::run(path, nanopu::sim::builtin_programs(), o, null);
  std::fclose(null);
  if (!r.ok() || !r->ended || r->exit_status != 0) {
    std::fprintf(stderr, "nanopu-bench-sim: %s: %s\n", path.c_str(),
                 r.ok() ? "did not end with every request answered" : std::string(r.status().message()).c_str());
    return false;
  }
  s->frames_per_s = static_cast<double>(r->frames) / r->wall_s;
  s->instants_per_s = static_cast<double>(r->instants) / r->wall_s;
  s->slower_than_real = r->wall_s / r->modelled_s;
  s->hosts = r->hosts.size();
  s->trace_hash = r->trace_hash;
  std::printf("  %-22s %d thread%s %4llu hosts: %.3f ms modelled in %.2f s of wall time, %llu frames, %llu instants\n",
              path.substr(path.rfind('/') + 1).c_str(), threads, threads == 1 ? " " : "s",
              static_cast<unsigned long long>(s->hosts),
              r->modelled_s * 1e3, r->wall_s, static_cast<unsigned long long>(r->frames),
              static_cast<unsigned long long>(r->instants));
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage("nanopu-bench-sim [--json=FILE] [--fabric_count=N]: nanopu-sim's speed by topology size");
  absl::ParseCommandLine(argc, argv);
  const std::string dir = "/tmp/nanopu-bench-sim-" + std::to_string(getpid());
  std::filesystem::create_directories(dir);
  const std::string fabric = dir + "/fabric-144.topo", two = dir + "/two-hosts.topo";
  std::ofstream(fabric) << fabric_text(absl::GetFlag(FLAGS_fabric_count));
  std::ofstream(two) << kTwoHosts;
  // The largest first: the simulation's one EAL is sized for the first run's hosts.
  const std::string incast_path = NANOPU_SOURCE_DIR "/deploy/netns/examples/incast-81hosts.topo";
  Speed big, big2, big_ranks, incast, incast2, incast_ranks, small;
  const bool ok = run(fabric, &big) && run(fabric, &big2, 2) && run(incast_path, &incast) &&
                  run(incast_path, &incast2, 2) && run(two, &small) && run_ranks(fabric, &big_ranks) &&
                  run_ranks(incast_path, &incast_ranks);
  std::filesystem::remove_all(dir);
  if (!ok) return 1;
  for (const auto& [one, other, how] : {std::tuple{&big, &big2, "two threads"}, {&incast, &incast2, "two threads"},
                                        {&big, &big_ranks, "two ranks"}, {&incast, &incast_ranks, "two ranks"}})
    if (one->trace_hash != other->trace_hash) {
      std::fprintf(stderr, "nanopu-bench-sim: %s ran another run than one thread (trace hash %016llx, not %016llx)\n",
                   how, static_cast<unsigned long long>(other->trace_hash),
                   static_cast<unsigned long long>(one->trace_hash));
      return 1;
    }
  std::vector<nanopu::bench::Row> rows;
  const std::pair<std::string, std::tuple<const Speed*, const Speed*, const Speed*>> topologies[] = {
      {"144-host leaf-spine", {&big, &big2, &big_ranks}}, {"81-host incast", {&incast, &incast2, &incast_ranks}}};
  for (const auto& [name, runs] : topologies) {
    const Speed& s = *std::get<0>(runs);
    const Speed& s2 = *std::get<1>(runs);
    const Speed& ranks = *std::get<2>(runs);
    auto row = [&](const std::string& what, double v, const char* unit, const char* ref_name, double ref) {
      nanopu::bench::Row r;
      r.name = name + ": " + what;
      r.value = v;
      r.unit = unit;
      r.reference = ref_name;
      r.ref_value = ref;
      rows.push_back(r);
    };
    const char* kSmall = "2 hosts, one switch";
    row("frames/s", s.frames_per_s / 1e3, "k/s", kSmall, small.frames_per_s / 1e3);
    row("instants/s", s.instants_per_s / 1e3, "k/s", kSmall, small.instants_per_s / 1e3);
    row("wall / modelled time", s.slower_than_real, "x", kSmall, small.slower_than_real);
    // Two threads beside one: the ratio is the speed-up (per core: half it).
    row("frames/s, 2 threads", s2.frames_per_s / 1e3, "k/s", "1 thread", s.frames_per_s / 1e3);
    row("frames/s per core, 2 threads", s2.frames_per_s / 2e3, "k/s", "1 thread", s.frames_per_s / 1e3);
    row("frames/s, 2 MPI ranks", ranks.frames_per_s / 1e3, "k/s", "1 thread", s.frames_per_s / 1e3);
  }
  nanopu::bench::print_table("nanopu-bench-sim", rows);
  const std::string json = absl::GetFlag(FLAGS_json).empty() ? "bench-sim.json" : absl::GetFlag(FLAGS_json);
  if (!nanopu::bench::write_json(json, "nanopu-bench-sim", rows)) {
    std::fprintf(stderr, "nanopu-bench-sim: cannot write %s\n", json.c_str());
    return 1;
  }
  std::printf("\nrows written to %s\n", json.c_str());
  return 0;
}
