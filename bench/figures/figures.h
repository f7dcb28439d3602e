// nanopu-figures: the seeds' figures recomputed with the timing model
// (lib/timing). Every number here is *modelled*. Each figure writes
// <out>/<name>.csv, plots <out>/<name>.png (bench/figures/plot.py, when
// python3-matplotlib is installed), prints its headline beside the paper's,
// and returns whether the headline is within the tolerance.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lib/timing/timing_params.h"

namespace nanopu::figures {

struct FigureOptions {
  std::string out_dir = ".";
  timing::TimingParams params;
  uint64_t requests = 200000;  // measured requests per virtual-time point
  uint64_t seed = 1;
  bool plot = true;
  double tolerance = 0.15;     // headline vs paper
};

struct Headline {
  std::string what;
  double value = 0;
  double paper = 0;
  bool upper_bound = false;  // the paper's number is a ceiling: pass at or below it
  [[nodiscard]] bool within(double tol) const;
};

// A CSV table: header then rows of numbers (first column may be text).
struct Table {
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;
};

// Writes <dir>/<name>.csv and (opts.plot) the PNG; kind: "bar" or "line".
bool write_figure(const FigureOptions& o, const std::string& name, const Table& t,
                  const std::string& kind, const std::string& title, const std::string& ylabel);
// Prints the headlines and returns whether all are within o.tolerance.
bool report(const FigureOptions& o, const std::string& name, const std::vector<Headline>& h);

bool fig2(const FigureOptions& o);
bool fig3(const FigureOptions& o);
bool fig7(const FigureOptions& o);
bool fig8(const FigureOptions& o);
bool jbsq(const FigureOptions& o);
bool nebula(const FigureOptions& o);
bool incast(const FigureOptions& o);

}  // namespace nanopu::figures
