// nanopu-bench-services: a latency-against-load curve, the load where its
// p99 doubles, and the files a curve set becomes (CSV, PNG, JSON).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "tools/loadgen/loadgen.h"
#include "bench/bench_table.h"
#include "bench/services/rig.h"

namespace nanopu::bench {

struct Curve {
  std::string label;          // e.g. "kv register-file, 1 core"
  std::vector<Point> points;  // one per offered load, ascending
};

// Runs `load` (nanopu-loadgen's arguments without --rate) at each rate and
// prints one line per point as it goes.
[[nodiscard]] Curve sweep(Rig& rig, const std::string& label, const std::vector<std::string>& load,
                          const std::vector<double>& rates);

// The lowest offered load whose measured p99 is at least twice the first
// point's; -1 if none (or the first point failed).
[[nodiscard]] double p99_doubles_at(const Curve& c);

// Writes <out>/<name>.csv (offered load, then measured and modelled p99 of
// each curve; curves share their loads) and plots it to <out>/<name>.png
// with bench/figures/plot.py. Returns false if a file cannot be written
// (the plot's failure is reported, not fatal: it needs python3-matplotlib).
// modelled_only: the curves have no measured points (only the modelled
// columns are written).
[[nodiscard]] bool write_curves(const std::string& out, const std::string& name, const std::string& title,
                                const std::vector<Curve>& curves, bool modelled_only = false);

// The lowest offered load whose modelled p99 is at least twice the first
// point's; -1 if none.
[[nodiscard]] double modelled_p99_doubles_at(const Curve& c);

// Offered loads for a service whose closed-loop throughput is `tput`:
// from a tenth of it to just past it.
[[nodiscard]] std::vector<double> loads_for(double tput);

// A measured curve's rows: p50 at its lowest load beside `ref_name`'s
// p50, and the load where its p99 doubles.
void measured_rows(const Curve& c, const std::string& ref_name, double ref_p50_us, std::vector<Row>* rows);

// A curve from the model alone: `model(rate)` at each offered rate.
[[nodiscard]] Curve modelled_curve(const std::string& label, const std::vector<double>& rates,
                                   const std::function<apps::ModelledLatency(double rate)>& model);

// The curves as a JSON value: {"label":[{"offered":..,"p50_us":..,...},..],..}.
[[nodiscard]] std::string curves_json(const std::vector<Curve>& curves);

}  // namespace nanopu::bench
