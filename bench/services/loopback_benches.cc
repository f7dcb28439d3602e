// Loopback throughput against message size, nanoPU OSDI'21 Figures 4 and 5:
// one core echoing (nanopu-server --app=loopback-throughput, driven by the
// packet tester's CONFIG/DATA sequence, nanopu-loadgen
// --service=tester-throughput) and adding one to every word (--app=increment,
// every word checked), closed loop. Beside each, the modelled nanoPU core's
// own limit (one request per core time: the loopback loop's per-message
// and per-word cycles, TimingModel::loopback_core_rps) and the paper's
// published points (8 B: the loop's cycles are fitted to it; 1 KB: a
// prediction).
#include <cmath>
#include <cstdio>

#include "absl/strings/str_format.h"
#include "bench/services/pair.h"
#include "model/timing/timing_model.h"

namespace nanopu::bench {

ServiceResult bench_loopback(const ServicesOptions& o) {
  ServiceResult r;
  r.ok = true;
  const uint32_t sizes[] = {24, 64, 256, 512, 1024};
  const model::TimingModel m{model::TimingParams{}};
  struct Variant {
    const char* label;
    const char* app;
    std::vector<std::string> load;
  };
  const Variant variants[] = {
      {"loopback", "--app=loopback-throughput", {"--service=tester-throughput"}},
      {"loopback-with-increment", "--app=increment", {"--expect=increment"}},
  };
  for (const Variant& v : variants) {
    std::fprintf(stderr, "%s: closed loop at %zu message sizes...\n", v.label, std::size(sizes));
    Pair s(o, v.label, {v.app});
    if (!s.ok()) return r.ok = false, r;
    for (uint32_t size : sizes) {
      std::vector<std::string> load = v.load;
      load.push_back(absl::StrFormat("--size=%u", size));
      load.push_back("--outstanding=16");
      load.push_back("--count=100000");
      const Point pt = s.rig().run(s.load(load), 0);
      r.ok = r.ok && pt.clean && pt.throughput > 0;
      r.rows.push_back({absl::StrFormat("%s %u B", v.label, size), pt.throughput / 1e6, "Mrps", "modelled nanoPU core limit",
                        m.loopback_core_rps(size) / 1e6, "", true});
      r.rows.push_back({absl::StrFormat("%s %u B", v.label, size), pt.throughput * size * 8 / 1e9, "Gb/s", "", 0,
                        "", true});
    }
    // The paper's points: loopback 118 Mrps at 8 B (the loop's cycles are
    // fitted to it), 166 Gb/s on the wire at 1 KB (§5.2.1; predicted).
    const double modelled_1k =
        m.loopback_core_rps(1024) * static_cast<double>(model::TimingModel::frame_bytes(1024)) * 8 / 1e9;
    const double modelled_8 = m.loopback_core_rps(8) / 1e6;
    if (std::string(v.label) == "loopback")
      r.rows.push_back({"loopback 8 B core limit (fitted)", modelled_8, "Mrps", "paper: 118 Mrps", 118,
                        "within 15% of the paper", std::abs(modelled_8 - 118) <= 0.15 * 118, true});
    if (std::string(v.label) == "loopback")
      r.rows.push_back({"loopback 1024 B core limit, wire", modelled_1k, "Gb/s", "paper: 166 Gb/s", 166,
                        "within 15% of the paper", std::abs(modelled_1k - 166) <= 0.15 * 166, true});
  }
  return r;
}

}  // namespace nanopu::bench
