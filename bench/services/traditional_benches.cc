// Figure 3's comparison measured on this host (nanoPU OSDI'21 §2, §5.2.1): an
// echo's round trip with both ends on the register file (nanopu-server
// --app=echo, nanopu-loadgen word by word) against both ends on the
// traditional path (--app_mode=traditional on each: every message copied
// whole between the NIC's buffers and memory), one request in flight, at
// 16 B to 1 KB; and closed-loop throughput with 16 in flight. Beside each
// measured ratio, the timing model's (traditional NIC over nanoPU loopback,
// Figure 3). The register-file run is the reference measured in the same
// run; nanopu does not emulate a PCIe NIC, so the traditional path here
// costs only its copies.
#include <cstdio>

#include "absl/strings/str_format.h"
#include "bench/services/pair.h"
#include "model/timing/timing_model.h"

namespace nanopu::bench {

ServiceResult bench_traditional(const ServicesOptions& o) {
  ServiceResult r;
  r.ok = true;
  const uint32_t sizes[] = {16, 64, 256, 512, 1024};
  const model::TimingModel m{model::TimingParams{}};
  struct Measured {
    double p50_us = -1, p99_us = -1, throughput = -1;
  };
  std::vector<Measured> reg(std::size(sizes)), mem(std::size(sizes));
  const struct {
    const char* label;
    const char* mode;
    std::vector<Measured>* out;
  } paths[] = {{"register-file", "--app_mode=register-file", &reg}, {"traditional", "--app_mode=traditional", &mem}};
  // Size by size, the two paths one after the other (each its own server
  // process): drift on a shared machine then falls on both alike.
  std::fprintf(stderr, "echo, register-file against traditional on both ends: %zu message sizes...\n",
               std::size(sizes));
  for (size_t i = 0; i < std::size(sizes); ++i) {
    for (const auto& p : paths) {
      Pair s(o, absl::StrFormat("fig3-%s-%u", p.label, sizes[i]), {"--app=echo", p.mode});
      if (!s.ok()) return r.ok = false, r;
      const std::string size = absl::StrFormat("--size=%u", sizes[i]);
      const Point one = s.rig().run(s.load({p.mode, size, "--outstanding=1"}), 0);
      const Point many = s.rig().run(s.load({p.mode, size, "--outstanding=16"}), 0);
      r.ok = r.ok && one.clean && many.clean;
      (*p.out)[i] = {one.p50_us, one.p99_us, many.throughput};
    }
  }
  for (size_t i = 0; i < std::size(sizes); ++i) {
    const uint32_t b = sizes[i];
    r.rows.push_back({absl::StrFormat("echo %u B traditional RTT p50", b), mem[i].p50_us * 1e3, "ns",
                      "register-file p50, same run", reg[i].p50_us * 1e3, "", true});
    r.rows.push_back({absl::StrFormat("echo %u B traditional RTT p99", b), mem[i].p99_us * 1e3, "ns",
                      "register-file p99, same run", reg[i].p99_us * 1e3, "", true});
    r.rows.push_back({absl::StrFormat("echo %u B traditional throughput", b), mem[i].throughput, "req/s",
                      "register-file, same run", reg[i].throughput, "", true});
    // Figure 3's ratio as the model has it: the traditional NIC's loopback
    // over the nanoPU's (3.0x at 8 B, narrowing with length).
    r.rows.push_back({absl::StrFormat("loopback %u B traditional NIC", b), m.traditional_loopback_ns(b), "ns",
                      "nanoPU loopback (modelled)", m.loopback_ns(b), "", true, true});
  }
  return r;
}

}  // namespace nanopu::bench
