// nanopu-figures: the seeds' figures recomputed with the timing model
// (model). Every number here is *modelled*. Each figure writes
// <out>/<name>.csv, plots <out>/<name>.png (bench/figures/plot.py, when
// python3-matplotlib is installed), prints its headline beside the paper's,
// and returns whether the headline is within the tolerance.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "model/timing/timing_params.h"

struct rte_mempool;

namespace nanopu::figures {

struct FigureOptions {
  std::string out_dir = ".";
  model::TimingParams params;
  uint64_t requests = 200000;  // measured requests per virtual-time point
  uint64_t seed = 1;
  bool plot = true;
  double tolerance = 0.15;     // headline vs paper
  int sim_threads = 1;         // a simulated figure's threads (the same run on any count)
};

struct Headline {
  std::string what;
  double value = 0;
  double paper = 0;
  bool upper_bound = false;  // the paper's number is a ceiling: pass at or below it
  // The model misses this number and docs/figures.md says so and
  // why: printed as a miss, not a failure. The figure must then assert the
  // paper's shape (Shape) instead.
  bool known_miss = false;
  // A parameter was fitted to this very number (model/timing/*.params): it
  // reproduces by construction, so it checks arithmetic and the parameter
  // files, not the model. Printed as such; the figure's independent checks
  // are its Shapes and its other headlines.
  bool fitted = false;
  [[nodiscard]] bool within(double tol) const;
};

// A property of the paper's figure the model must reproduce (an ordering,
// a trend): a figure fails when one does not hold.
struct Shape {
  std::string what;
  bool holds = false;
};

// A CSV table: header then rows of numbers (first column may be text).
struct Table {
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;
};

// The q-quantile of v (0 when empty): the value at index q * size, sorted.
[[nodiscard]] double sample_quantile(std::vector<double> v, double q);

// Writes <dir>/<name>.csv and (opts.plot) the PNG; kind: "bar" or "line".
bool write_figure(const FigureOptions& o, const std::string& name, const Table& t,
                  const std::string& kind, const std::string& title, const std::string& ylabel);
// Prints the headlines and shapes; returns whether every headline is within
// o.tolerance or a known miss, and every shape holds.
bool report(const FigureOptions& o, const std::string& name, const std::vector<Headline>& h,
            const std::vector<Shape>& shapes = {});

bool fig2(const FigureOptions& o);
bool fig3(const FigureOptions& o);
bool fig4(const FigureOptions& o);
bool fig7(const FigureOptions& o);
bool fig8(const FigureOptions& o);
bool jbsq(const FigureOptions& o);
bool nebula(const FigureOptions& o);
// NEBULA's Fig. 2 (the memory model behind the queueing one): bench/figures/nebula_memory_figure.cc.
bool nebula_memory(const FigureOptions& o);
// NEBULA's §VII evaluation (Fig. 6-8, Table III) on its simulated server: bench/figures/nebula_eval_figure.cc.
bool nebula_evaluation(const FigureOptions& o);
// PsPIN (sPIN handlers): the examples/spin-handlers use cases, modelled and live.
bool pspin(const FigureOptions& o);
// DPDK's EAL, started once (no hugepages, one lcore) with room for `hosts`
// simulated hosts' pools of `mb_per_host` (the first call's; nanopu-sim's
// hosts take 48 MB with their 4095 packet buffers): false if it cannot.
bool model_eal(size_t hosts = 16, size_t mb_per_host = 48);
// The mempool of the virtual-time network figures (starts the EAL);
// nullptr if it cannot start.
rte_mempool* model_mempool();

bool incast(const FigureOptions& o);
bool homa(const FigureOptions& o);
// The Homa paper's Figure 12 on a leaf-spine fabric, every host's real code
// on nanopu-sim's clock: bench/figures/homa_slowdown_figure.cc.
bool homa_slowdown(const FigureOptions& o);

// The multi-host services, every host's real code on one modelled clock
// (nanopu-sim, tools/simulator): bench/figures/service_figures.cc.
bool raft(const FigureOptions& o);
bool chain(const FigureOptions& o);
bool rdma(const FigureOptions& o);
// The single-host services' curves from their code: bench/figures/service_curves.cc.
bool mica(const FigureOptions& o);
bool setint(const FigureOptions& o);
// MICA on four cores, JBSQ against static (the tail version's Figure 7): bench/figures/service_curves.cc.
bool mica_cores(const FigureOptions& o);
// nanoPU (OSDI'21) Table 1, the ten applications at low load: bench/figures/table1_figure.cc.
bool table1(const FigureOptions& o);

}  // namespace nanopu::figures
