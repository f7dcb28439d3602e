// fig2 and fig3: the fast path's latency (nanoPU (OSDI'21) §5.2.1), from the stage model.
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "bench/figures/figures.h"
#include "lib/timing/timing_model.h"

namespace nanopu::figures {

bool fig2(const FigureOptions& o) {
  Table t{{"parameter set", "stage", "ns"}, {}};
  std::vector<Headline> h;
  for (const char* set : {"osdi21", "tail"}) {
    timing::TimingParams p = *timing::builtin_timing_params(set);
    if (o.params.name == set) p = o.params;  // a loaded file replaces its set
    const timing::TimingModel m(p);
    std::printf("Figure 2 (set %s): 8-byte message, 72-byte packet, modelled\n", set);
    for (const timing::Stage& s : m.loopback_stages(8)) {
      std::printf("  %-28s %6.2f ns\n", s.name.c_str(), s.ns);
      t.rows.push_back({set, s.name, absl::StrCat(s.ns)});
    }
    t.rows.push_back({set, "MAC + serial I/O (both ways)", absl::StrCat(2 * p.mac_serial_io_ns)});
    const bool first = std::string(set) == "osdi21";
    h.push_back({absl::StrCat("set ", set, " loopback (fast path), ns"), m.loopback_ns(8), first ? 17.0 : 13.0});
    h.push_back({absl::StrCat("set ", set, " wire-to-wire, ns"), m.wire_to_wire_ns(8), first ? 69.0 : 65.0});
  }
  const bool ok = write_figure(o, "fig2", t, "bar", "Latency breakdown, 8 B loopback (modelled)", "ns");
  return report(o, "fig2", h) && ok;
}

bool fig3(const FigureOptions& o) {
  const timing::TimingModel m(o.params);
  Table t{{"message bytes", "nanoPU fast path ns", "traditional NIC ns"}, {}};
  std::printf("Figure 3: loopback response time vs message length, modelled\n");
  std::printf("  %8s %14s %14s\n", "bytes", "nanoPU ns", "traditional ns");
  for (size_t b = 8; b <= 1024; b *= 2) {
    std::printf("  %8zu %14.1f %14.1f\n", b, m.loopback_ns(b), m.traditional_loopback_ns(b));
    t.rows.push_back({absl::StrCat(b), absl::StrCat(m.loopback_ns(b)), absl::StrCat(m.traditional_loopback_ns(b))});
  }
  const bool ok = write_figure(o, "fig3", t, "line", "Loopback response time vs message length (modelled)", "ns");
  return report(o, "fig3",
                {{"traditional / nanoPU at 8 B", m.traditional_loopback_ns(8) / m.loopback_ns(8), 3.0},
                 {"traditional at 8 B, ns", m.traditional_loopback_ns(8), 51.0}}) &&
         ok;
}

}  // namespace nanopu::figures
