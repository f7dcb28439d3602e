// nanopu-figures <name>: recompute a figure of the seeds with the timing
// model and virtual time (bench/figures/figures.h). All numbers modelled.
#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/str_cat.h"
#include "bench/figures/figures.h"
#include "bench/plot_csv.h"
#include "nanopu/flags.h"
#include "nanopu/program_flags.h"

ABSL_FLAG(std::string, out, "figures", "Directory for <name>.csv and <name>.png.");
ABSL_DECLARE_FLAG(int32_t, sim_threads);  // runtime/simulation's: the same run on any count, faster on a fabric
ABSL_FLAG(std::string, params, "osdi21",
          "Timing parameters: a built-in set (osdi21: 17/69 ns; tail: 13/65 ns, the tail-latency version) or a file "
          "(model/timing/nanopu-osdi21.params shows the format).");
ABSL_FLAG(uint64_t, requests, 200000, "Measured requests per virtual-time load point.");
// --seed is the programs' shared flag (nanopu/program_flags.h): raft, chain
// and rdma run those programs in this process. Here it seeds the
// virtual-time runs (same seed, same numbers); 0 means 1.
ABSL_FLAG(bool, plot, true, "Also plot <name>.png with python3-matplotlib (if installed).");
ABSL_FLAG(double, tolerance, 0.15, "Headline tolerance vs the paper (relative).");

namespace nanopu::figures {

double sample_quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(q * static_cast<double>(v.size())))];
}

bool Headline::within(double tol) const {
  if (upper_bound) return value <= paper * (1 + tol);
  return std::fabs(value - paper) <= tol * std::fabs(paper);
}

bool write_figure(const FigureOptions& o, const std::string& name, const Table& t,
                  const std::string& kind, const std::string& title, const std::string& ylabel) {
  mkdir(o.out_dir.c_str(), 0755);
  const std::string csv = o.out_dir + "/" + name + ".csv";
  {
    std::ofstream f(csv);
    using nanopu::bench::csv_cell;
    for (size_t i = 0; i < t.columns.size(); ++i) f << (i ? "," : "") << csv_cell(t.columns[i]);
    f << "\n";
    for (const auto& row : t.rows) {
      for (size_t i = 0; i < row.size(); ++i) f << (i ? "," : "") << csv_cell(row[i]);
      f << "\n";
    }
    if (!f) {
      std::fprintf(stderr, "nanopu-figures: cannot write %s\n", csv.c_str());
      return false;
    }
  }
  std::printf("  wrote %s\n", csv.c_str());
  if (!o.plot) return true;
  const std::string png = o.out_dir + "/" + name + ".png";
  if (!nanopu::bench::plot_csv(csv, png, kind, title, ylabel)) {
    std::fprintf(stderr, "  (no plot: the plotter said why above; the CSV is complete)\n");
    return true;
  }
  std::printf("  wrote %s\n", png.c_str());
  return true;
}

bool report(const FigureOptions& o, const std::string& name, const std::vector<Headline>& hs,
            const std::vector<Shape>& shapes) {
  bool all = true;
  std::printf("%s headline (modelled) vs paper, tolerance %.0f%%:\n", name.c_str(), o.tolerance * 100);
  for (const Headline& h : hs) {
    const bool ok = h.within(o.tolerance);
    all &= ok || h.known_miss;
    std::printf("  %-58s %9.3f  paper %s%7.3f  %s%s\n", h.what.c_str(), h.value, h.upper_bound ? "<= " : "",
                h.paper, ok ? "within" : h.known_miss ? "MISSES (known: docs/figures.md)" : "OUTSIDE",
                h.fitted ? " (fitted to it: arithmetic)" : "");
  }
  for (const Shape& s : shapes) {
    all &= s.holds;
    std::printf("  shape: %-67s %s\n", s.what.c_str(), s.holds ? "holds" : "DOES NOT HOLD");
  }
  return all;
}

}  // namespace nanopu::figures

int main(int argc, char** argv) {
  nanopu::init_flags_usage(
      "recompute a figure of the nanoPU papers with nanopu's timing model (all numbers modelled).\n"
      "Usage: nanopu-figures [flags] <fig2|fig3|fig4|fig7|fig8|jbsq|nebula|incast|homa|homa-slowdown|raft|chain|rdma|mica|mica-cores|setint|table1|pspin|all>\n"
      "Writes <out>/<name>.csv and .png and prints the paper's number beside the result.\n"
      "Exit status 0: every headline within --tolerance of the paper, or a miss docs/figures.md\n"
      "documents whose figure then holds the paper's shape; 3: otherwise; 2: usage.\n"
      "incast runs the real NDP transport on 81 modelled hosts (it starts DPDK's EAL, no hugepages);\n"
      "homa runs the real Homa and NDP transports on 16 modelled hosts under the W3 workload;\n"
      "homa-slowdown runs every host of a leaf-spine fabric (nanopu-sim's workload program) under W1..W5\n"
      "at 80% load, Homa and NDP, for the Homa paper's Figure 12 (reduced by default: --fabric_racks,\n"
      "--fabric_rack_hosts, --fabric_spines, --workload_messages; tools/fabric/homa_slowdown.sh: 144 hosts);\n"
      "nanopu-bench-incast measures the same experiment in real time;\n"
      "raft, chain and rdma run the services' own code (nanopu-server's and nanopu-loadgen's programs)\n"
      "on every host of the paper's topology, on one modelled clock (nanopu-sim; --seed replays a run);\n"
      "mica and setint sweep the kv and setint services' offered load the same way, each service's\n"
      "code charged the work it declares for the operations it did (Thread::charge_work);\n"
      "table1 runs the ten applications of nanoPU Table 1 the same way at low load, beside its column;\n"
      "mica-cores runs MICA on four cores, JBSQ against static assignment (the tail version's Figure 7);\n"
      "pspin runs the six sPIN use cases' handlers (examples/spin-handlers) for PsPIN's Fig. 10 (modelled\n"
      "from the cycles they declare) and Fig. 11's x86 column (measured live on one core of this machine).",
      {"bench/figures/"});
  std::vector<char*> args = absl::ParseCommandLine(argc, argv);
  using Fn = bool (*)(const nanopu::figures::FigureOptions&);
  const std::map<std::string, Fn> figs = {
      {"fig2", nanopu::figures::fig2}, {"fig3", nanopu::figures::fig3}, {"fig4", nanopu::figures::fig4},
      {"fig7", nanopu::figures::fig7}, {"fig8", nanopu::figures::fig8},
      {"jbsq", nanopu::figures::jbsq}, {"nebula", nanopu::figures::nebula},
      {"incast", nanopu::figures::incast}, {"homa", nanopu::figures::homa},
      {"homa-slowdown", nanopu::figures::homa_slowdown},
      {"raft", nanopu::figures::raft}, {"chain", nanopu::figures::chain}, {"rdma", nanopu::figures::rdma},
      {"mica", nanopu::figures::mica}, {"setint", nanopu::figures::setint}, {"table1", nanopu::figures::table1},
      {"mica-cores", nanopu::figures::mica_cores},
      {"pspin", nanopu::figures::pspin}};
  if (args.size() != 2 || (figs.count(args[1]) == 0 && std::string(args[1]) != "all")) {
    std::fprintf(stderr, "usage: nanopu-figures [flags] <fig2|fig3|fig4|fig7|fig8|jbsq|nebula|incast|homa|homa-slowdown|raft|chain|rdma|mica|mica-cores|setint|table1|pspin|all> "
                         "(--help for flags)\n");
    return 2;
  }
  nanopu::figures::FigureOptions o;
  o.out_dir = absl::GetFlag(FLAGS_out);
  o.requests = absl::GetFlag(FLAGS_requests);
  o.seed = absl::GetFlag(FLAGS_seed) == 0 ? 1 : absl::GetFlag(FLAGS_seed);
  o.plot = absl::GetFlag(FLAGS_plot);
  o.tolerance = absl::GetFlag(FLAGS_tolerance);
  o.sim_threads = absl::GetFlag(FLAGS_sim_threads);  // nanopu-sim's flag: the simulated figures' threads
  if (o.sim_threads < 1) {
    std::fprintf(stderr, "nanopu-figures: --sim_threads must be at least 1\n");
    return 2;
  }
  const std::string params = absl::GetFlag(FLAGS_params);
  absl::StatusOr<nanopu::model::TimingParams> p = nanopu::model::named_timing_params(params);
  if (!p.ok()) {
    std::fprintf(stderr, "nanopu-figures: %s\n", std::string(p.status().message()).c_str());
    return 2;
  }
  if (o.requests < 1000) {
    std::fprintf(stderr, "nanopu-figures: --requests must be at least 1000\n");
    return 2;
  }
  o.params = *p;
  bool ok = true;
  for (const auto& [name, fn] : figs)
    if (std::string(args[1]) == "all" || name == args[1]) ok &= fn(o);
  return ok ? 0 : 3;
}
