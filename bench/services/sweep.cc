#include "bench/services/sweep.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "absl/strings/str_format.h"
#include "bench/plot_csv.h"

namespace nanopu::bench {

Curve sweep(Rig& rig, const std::string& label, const std::vector<std::string>& load,
            const std::vector<double>& rates) {
  Curve c{label, {}};
  for (double rate : rates) {
    std::vector<std::string> args = load;
    args.push_back(absl::StrFormat("--rate=%.0f", rate));
    const Point p = rig.run(args, rate);
    std::printf("%-30s %10.0f %10.2f %10.2f %12.3f %12.3f %6s %9s\n", label.c_str(), rate, p.p50_us,
                p.p99_us, p.modelled_p50_us, p.modelled_p99_us, p.clean ? "yes" : "NO", p.modelled_source.c_str());
    std::fflush(stdout);
    c.points.push_back(p);
  }
  return c;
}

double p99_doubles_at(const Curve& c) {
  if (c.points.empty() || c.points[0].p99_us <= 0) return -1;
  for (const Point& p : c.points)
    if (p.p99_us >= 2 * c.points[0].p99_us || p.p99_us < 0) return p.offered;
  return -1;
}

double modelled_p99_doubles_at(const Curve& c) {
  if (c.points.empty() || c.points[0].modelled_p99_us <= 0) return -1;
  for (const Point& p : c.points)
    if (p.modelled_p99_us >= 2 * c.points[0].modelled_p99_us) return p.offered;
  return -1;
}

bool write_curves(const std::string& out, const std::string& name, const std::string& title,
                  const std::vector<Curve>& curves, bool modelled_only) {
  const std::string csv = out + "/" + name + ".csv", png = out + "/" + name + ".png";
  {
    std::ofstream f(csv);
    f << "offered load (req/s)";  // labels hold commas: csv_cell quotes them
    for (const Curve& c : curves) {
      if (!modelled_only) f << "," << csv_cell(c.label + " p99 measured");
      f << "," << csv_cell(c.label + " p99 modelled");
    }
    f << "\n";
    for (size_t i = 0; !curves.empty() && i < curves[0].points.size(); ++i) {
      f << curves[0].points[i].offered;
      for (const Curve& c : curves) {
        if (!modelled_only) f << "," << (i < c.points.size() ? c.points[i].p99_us : -1);
        f << "," << (i < c.points.size() ? c.points[i].modelled_p99_us : -1);
      }
      f << "\n";
    }
    if (!f) return std::fprintf(stderr, "nanopu-bench-services: cannot write %s\n", csv.c_str()), false;
  }
  if (!plot_csv(csv, png, "line", title, "p99 round trip (us)"))
    std::fprintf(stderr, "nanopu-bench-services: no plot %s (python3-matplotlib missing? run deploy/setup.sh)\n",
                 png.c_str());
  return true;
}

std::string curves_json(const std::vector<Curve>& curves) {
  std::string j = "{";
  for (size_t k = 0; k < curves.size(); ++k) {
    j += absl::StrFormat("%s\"%s\":[", k ? "," : "", curves[k].label);
    for (size_t i = 0; i < curves[k].points.size(); ++i) {
      const Point& p = curves[k].points[i];
      j += absl::StrFormat(
          "%s{\"offered\":%.0f,\"p50_us\":%.3f,\"p99_us\":%.3f,\"p50_us_modelled\":%.3f,"
          "\"p99_us_modelled\":%.3f,\"modelled_from\":\"%s\",\"throughput\":%.1f,\"clean\":%s}",
          i ? "," : "", p.offered, p.p50_us, p.p99_us, p.modelled_p50_us, p.modelled_p99_us, p.modelled_source,
          p.throughput, p.clean ? "true" : "false");
    }
    j += "]";
  }
  return j + "}";
}

// Offered loads for a service whose closed-loop throughput is `tput`:
// from a tenth of it to just past it.
std::vector<double> loads_for(double tput) {
  std::vector<double> r;
  for (double f : {0.1, 0.25, 0.5, 0.75, 0.9, 1.1}) r.push_back(std::round(tput * f / 100) * 100);
  return r;
}

void measured_rows(const Curve& c, const std::string& ref_name, double ref_p50_us, std::vector<Row>* rows) {
  rows->push_back({c.label + ": p50 at lowest load", c.points.front().p50_us * 1e3, "ns", ref_name,
                   ref_p50_us * 1e3, "", true});
  rows->push_back({c.label + ": load where p99 doubles", p99_doubles_at(c), "req/s", "highest load offered",
                   c.points.back().offered, "", true});
}

Curve modelled_curve(const std::string& label, const std::vector<double>& rates,
                     const std::function<apps::ModelledLatency(double rate)>& model) {
  Curve c{label, {}};
  for (double rate : rates) {
    const apps::ModelledLatency m = model(rate);
    Point p;
    p.offered = rate;
    p.modelled_mean_us = m.mean_ns / 1e3;
    p.modelled_p50_us = m.p50_ns / 1e3;
    p.modelled_p99_us = m.p99_ns / 1e3;
    c.points.push_back(p);
  }
  return c;
}

}  // namespace nanopu::bench
