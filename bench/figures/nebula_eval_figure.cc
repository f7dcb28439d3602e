// NEBULA (ISCA'20) §VII on Table II's simulated server (16 cores, 16 MB of
// LLC, 31 GB/s): Fig. 6 (p99 and DRAM bandwidth against load, 50/50
// GET/SET), Table III (the three query mixes), Fig. 7 (value sizes) and
// Fig. 8 (NIC-to-core steering against no prefetch and the RPC loop's own
// prefetch). The paper ran MICA on a cycle-level full-system simulator;
// here each RPC is MICA's memory demand (model::RpcMemoryDemand::mica) on
// the memory model, served by the virtual-time host (bench/figures/
// nebula_host.h). Every number is *modelled*; misses and their causes are
// in docs/figures.md, "nebula".
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bench/figures/figures.h"
#include "bench/figures/nebula_host.h"
#include "model/memory/memory_system.h"

namespace nanopu::figures {
namespace {

// Buffers as the paper provisions them (model::paper_buffer_bytes: 136 MB
// per connection, NEBULA's "81KB" pool). Service times fixed, as
// §III's "narrow distributions observed in object stores" (the paper gives
// only means); SRQ's 1.75× over RPCValet needs a narrow one (an
// exponential one holds 16 uniformly loaded cores to 0.54 of their
// capacity at a 10 × S̄ p99).
NebulaServer table2(double get_share, double value_bytes) {
  NebulaServer s;
  s.memory = model::MemorySystem::nebula_simulation();
  s.rpc = model::RpcMemoryDemand::mica(get_share, value_bytes);
  return s;
}

// "Our SLO is a 99th% latency target of 10× the average RPC service time."
double slo_of(const NebulaServer& s) { return 10 * s.rpc.service_ns; }

double mrps(double rps) { return rps / 1e6; }

// A number the model misses for a cause docs/figures.md ("nebula: §VII")
// gives; the figure asserts the paper's shape around it instead.
Headline miss(std::string what, double value, double paper) {
  Headline h{std::move(what), value, paper};
  h.known_miss = true;
  return h;
}

// §VII-C: NEBULA's steering saves an RPC queued behind another the fetch
// of its payload (it is in L1 when the RPC starts): 32 ns, *fitted* to the
// p99's 64 ns gain between 16 and 22 Mrps (the paper expects "∼50 cycles
// (25ns)"; the p99's RPC waits behind one that saved too).
// The software prefetch pays its 60 ns scan after every RPC, and with a
// degree of one the payload it asks for is the one the core starts next:
// the fetch is not hidden (assumed: the paper gives the overhead only).
constexpr double kPrefetchSavingNs = -32;
constexpr double kSoftwareScanNs = 60;

struct Fig6 {
  double max_mrps[4] = {};
  double gbs_at_max[4] = {};
  double rss_over_valet_at_10 = 0;
  double srq_over_nebula_at_16 = 0;
};

Fig6 fig6(const FigureOptions& o, std::vector<Headline>* h) {
  const NebulaServer s = table2(0.5, 512);
  const NebulaSystem systems[4] = {kRss, kRpcValet, kSrq, kNebula};
  Table t{{"Mrps"}, {}};
  for (const NebulaSystem& y : systems) t.columns.push_back(absl::StrCat(y.name, " p99 us"));
  t.columns.push_back("per-connection GB/s");
  t.columns.push_back("LLC-resident GB/s");
  for (int m = 2; m <= 24; m += 2) {
    std::vector<std::string> row = {absl::StrCat(m)};
    double gb[2] = {};
    for (const NebulaSystem& y : systems) {
      const NebulaPoint p = nebula_at(o, s, y, m * 1e6);
      row.push_back(std::isinf(p.p99_ns) ? "inf" : absl::StrCat(p.p99_ns / 1000));
      gb[y.buffers == model::BufferProvisioning::kPerConnection ? 0 : 1] =
          p.memory.bytes_per_s / 1e9;
    }
    row.push_back(absl::StrCat(gb[0]));
    row.push_back(absl::StrCat(gb[1]));
    t.rows.push_back(row);
  }
  write_figure(o, "nebula_fig6", t, "line", "NEBULA Fig. 6: p99 vs load, 16 cores (modelled)",
               "p99 us");
  Fig6 f;
  std::printf(
      "NEBULA Figure 6: %s, MICA 50/50 GET/SET 512 B (S̄ %.0f ns), SLO p99 <= %.1f us (modelled)\n",
      s.memory.name.c_str(), s.rpc.service_ns, slo_of(s) / 1000);
  for (int i = 0; i < 4; ++i) {
    const double rps = nebula_max_rps(o, s, systems[i], slo_of(s));
    const NebulaPoint p = nebula_at(o, s, systems[i], rps);
    f.max_mrps[i] = mrps(rps);
    f.gbs_at_max[i] = p.memory.bytes_per_s / 1e9;
    std::printf("  %-9s max %.1f Mrps at SLO: p99 %.2f us, DRAM %.1f GB/s (%.0f%% of %.0f)\n",
                systems[i].name, f.max_mrps[i], p.p99_ns / 1000, f.gbs_at_max[i],
                100 * f.gbs_at_max[i] * 1e9 / s.memory.dram_bytes_per_s,
                s.memory.dram_bytes_per_s / 1e9);
  }
  f.rss_over_valet_at_10 =
      nebula_at(o, s, kRss, 10e6).p99_ns / nebula_at(o, s, kRpcValet, 10e6).p99_ns;
  f.srq_over_nebula_at_16 =
      nebula_at(o, s, kSrq, 16e6).p99_ns / nebula_at(o, s, kNebula, 16e6).p99_ns;
  // Memory-bound: the model's GET costs the DRAM less than the paper's (cause a).
  h->push_back(miss("Fig. 6: RPCValet max Mrps at SLO", f.max_mrps[1], 11.4));
  // "SRQemu ... delivers 1.75× higher load than RSS/RPCValet".
  h->push_back({"Fig. 6: SRQ max Mrps at SLO (1.75 x 11.4)", f.max_mrps[2], 1.75 * 11.4});
  h->push_back({"Fig. 6: NEBULAbase max Mrps at SLO", f.max_mrps[3], 22.2});
  Headline gbs{"Fig. 6: RPCValet DRAM GB/s at its max", f.gbs_at_max[1], 25.3};
  gbs.fitted = true;  // the DRAM's sustainable share was fitted to it
  h->push_back(gbs);
  // Tail ratios rest on the service-time distribution the paper does not give (cause c).
  h->push_back(miss("Fig. 6: RSS / RPCValet p99 at 10 Mrps", f.rss_over_valet_at_10, 2.6));
  h->push_back(miss("Fig. 6: SRQ / NEBULAbase p99 at 16 Mrps", f.srq_over_nebula_at_16, 2.2));
  return f;
}

// Table III: the three query mixes at 512 B. Returns whether RPCValet is
// memory-bound at every mix (>= 90 % of the DRAM's usable bandwidth at its max).
bool table3(const FigureOptions& o, std::vector<Headline>* h) {
  bool valet_bound = true;
  struct Mix {
    const char* name;
    double get_share;
    double valet_mrps, valet_gbs, nebula_mrps, nebula_gbs;
    // Cause a: the paper's bytes per query are the mix's whatever it is,
    // the model's GET is cheaper and its SET dearer (docs/figures.md).
    bool valet_mrps_missed, nebula_mrps_missed, nebula_gbs_missed;
  };
  const Mix mixes[] = {{"0/100", 0, 11.4, 24.5, 26.7, 22.6, false, true, false},
                       {"50/50", 0.5, 11.4, 25.3, 22.2, 21.1, true, false, false},
                       {"95/5", 0.95, 11.4, 24.8, 22.2, 20.9, true, false, true}};
  std::printf(
      "NEBULA Table III: max throughput under SLO and DRAM bandwidth there, per GET/SET mix "
      "(modelled)\n");
  Table t{{"mix", "RPCValet Mrps", "paper", "RPCValet GB/s", "paper", "NEBULA Mrps", "paper",
           "NEBULA GB/s", "paper"},
          {}};
  for (const Mix& m : mixes) {
    const NebulaServer s = table2(m.get_share, 512);
    const double valet = nebula_max_rps(o, s, kRpcValet, slo_of(s));
    const double nebula = nebula_max_rps(o, s, kNebula, slo_of(s));
    const double valet_gbs = nebula_at(o, s, kRpcValet, valet).memory.bytes_per_s / 1e9;
    const double nebula_gbs = nebula_at(o, s, kNebula, nebula).memory.bytes_per_s / 1e9;
    std::printf(
        "  %-6s S̄ %.0f ns: RPCValet %.1f Mrps (paper %.1f), %.1f GB/s (%.1f); NEBULAbase %.1f Mrps "
        "(%.1f), "
        "%.1f GB/s (%.1f)\n",
        m.name, s.rpc.service_ns, mrps(valet), m.valet_mrps, valet_gbs, m.valet_gbs, mrps(nebula),
        m.nebula_mrps, nebula_gbs, m.nebula_gbs);
    t.rows.push_back({m.name, absl::StrCat(mrps(valet)), absl::StrCat(m.valet_mrps),
                      absl::StrCat(valet_gbs), absl::StrCat(m.valet_gbs),
                      absl::StrCat(mrps(nebula)), absl::StrCat(m.nebula_mrps),
                      absl::StrCat(nebula_gbs), absl::StrCat(m.nebula_gbs)});
    Headline vm{absl::StrCat("Table III ", m.name, ": RPCValet Mrps"), mrps(valet), m.valet_mrps};
    vm.known_miss = m.valet_mrps_missed;
    Headline nm{absl::StrCat("Table III ", m.name, ": NEBULAbase Mrps"), mrps(nebula),
                m.nebula_mrps};
    nm.known_miss = m.nebula_mrps_missed;
    Headline ng{absl::StrCat("Table III ", m.name, ": NEBULAbase GB/s"), nebula_gbs, m.nebula_gbs};
    ng.known_miss = m.nebula_gbs_missed;
    // Memory-bound at every mix, RPCValet runs at the DRAM's sustainable
    // share, which was fitted to the 50/50 row's 25.3 GB/s.
    Headline vg{absl::StrCat("Table III ", m.name, ": RPCValet GB/s"), valet_gbs, m.valet_gbs};
    vg.fitted = true;
    h->insert(h->end(), {vm, vg, nm, ng});
    valet_bound &= valet_gbs >= 0.9 * s.memory.usable_bytes_per_s() / 1e9;
  }
  write_figure(o, "nebula_table3", t, "bar", "NEBULA Table III (modelled)", "Mrps / GB/s");
  return valet_bound;
}

// Fig. 7: value sizes, 50/50. Returns RPCValet's and NEBULAbase's max Mrps at 64 / 256 / 512 B.
void fig7(const FigureOptions& o, std::vector<Headline>* h, double valet[3], double nebula[3]) {
  const double sizes[3] = {64, 256, 512};
  std::printf(
      "NEBULA Figure 7: max throughput under SLO against MICA's value size, 50/50 (modelled)\n");
  Table t{{"value B", "RPCValet Mrps", "NEBULAbase Mrps", "RPCValet GB/s", "NEBULAbase GB/s"}, {}};
  for (int i = 0; i < 3; ++i) {
    const NebulaServer s = table2(0.5, sizes[i]);
    valet[i] = mrps(nebula_max_rps(o, s, kRpcValet, slo_of(s)));
    nebula[i] = mrps(nebula_max_rps(o, s, kNebula, slo_of(s)));
    const double vg = nebula_at(o, s, kRpcValet, valet[i] * 1e6).memory.bytes_per_s / 1e9;
    const double ng = nebula_at(o, s, kNebula, nebula[i] * 1e6).memory.bytes_per_s / 1e9;
    std::printf(
        "  %4.0f B (S̄ %.0f ns): RPCValet %.1f Mrps, %.1f GB/s; NEBULAbase %.1f Mrps, %.1f GB/s\n",
        sizes[i], s.rpc.service_ns, valet[i], vg, nebula[i], ng);
    t.rows.push_back({absl::StrCat(sizes[i]), absl::StrCat(valet[i]), absl::StrCat(nebula[i]),
                      absl::StrCat(vg), absl::StrCat(ng)});
  }
  write_figure(o, "nebula_fig7", t, "bar",
               "NEBULA Fig. 7: max Mrps under SLO by value size (modelled)", "Mrps");
  // Cause b: the paper's RPCValet pays a write-allocate before dispatch at
  // 64 B and fixed per-RPC traffic at 256 B that the model does not.
  h->push_back(miss("Fig. 7: RPCValet max Mrps, 64 B values", valet[0], 26.7));
  h->push_back(miss("Fig. 7: RPCValet max Mrps, 256 B values", valet[1], 16));
  h->push_back({"Fig. 7: NEBULAbase max Mrps, 64 B values", nebula[0], 33.3});
}

// Fig. 8: NEBULAbase, NEBULA (steering) and the software prefetch, 512 B, 50/50.
struct Fig8 {
  double max_mrps[3] = {};
  double p99_at_12[3] = {};
  double p99_at_19[3] = {};
  double p99_at_22[3] = {};
};

Fig8 fig8(const FigureOptions& o, double srq_mrps, double valet_mrps, std::vector<Headline>* h) {
  NebulaServer policies[3] = {table2(0.5, 512), table2(0.5, 512), table2(0.5, 512)};
  const char* names[3] = {"NEBULAbase", "NEBULA", "NEBULA SW prefetch"};
  policies[1].queued_delta_ns = kPrefetchSavingNs;
  policies[2].after_ns = kSoftwareScanNs;
  std::printf(
      "NEBULA Figure 8: prefetch policies, MICA 50/50 512 B (modelled; saving %.0f ns for a queued "
      "RPC, "
      "software scan %.0f ns)\n",
      -kPrefetchSavingNs, kSoftwareScanNs);
  Table t{{"Mrps"}, {}};
  for (const char* n : names) t.columns.push_back(absl::StrCat(n, " p99 us"));
  for (int m = 10; m <= 24; m += 2) {
    std::vector<std::string> row = {absl::StrCat(m)};
    for (const NebulaServer& s : policies) {
      const double p99 = nebula_at(o, s, kNebula, m * 1e6).p99_ns;
      row.push_back(std::isinf(p99) ? "inf" : absl::StrCat(p99 / 1000));
    }
    t.rows.push_back(row);
  }
  write_figure(o, "nebula_fig8", t, "line",
               "NEBULA Fig. 8: p99 vs load by prefetch policy (modelled)", "p99 us");
  Fig8 f;
  for (int i = 0; i < 3; ++i) {
    f.max_mrps[i] = mrps(nebula_max_rps(o, policies[i], kNebula, slo_of(policies[i])));
    f.p99_at_22[i] = nebula_at(o, policies[i], kNebula, 22e6).p99_ns;
    f.p99_at_12[i] = nebula_at(o, policies[i], kNebula, 12e6).p99_ns;
    f.p99_at_19[i] = nebula_at(o, policies[i], kNebula, 19e6).p99_ns;
    std::printf("  %-19s max %.1f Mrps at SLO; p99 %.0f ns at 19 Mrps, %.0f ns at 22 Mrps\n",
                names[i], f.max_mrps[i], f.p99_at_19[i], f.p99_at_22[i]);
  }
  // "NEBULA improves throughput under SLO over current multi-queue (SRQ)
  // and single-queue (RPCValet) systems by 1.25× and 2.19×".
  h->push_back({"Fig. 8: NEBULA max Mrps at SLO (2.19 x 11.4)", f.max_mrps[1], 2.19 * 11.4});
  h->push_back({"Fig. 8: NEBULA / SRQ max Mrps", f.max_mrps[1] / srq_mrps, 1.25});
  h->push_back({"Fig. 8: NEBULA / RPCValet max Mrps", f.max_mrps[1] / valet_mrps, 2.19});
  Headline gain{"Fig. 8: NEBULAbase - NEBULA p99 at 19 Mrps, ns", f.p99_at_19[0] - f.p99_at_19[1],
                64};
  gain.fitted = true;  // the saving was fitted to it
  h->push_back(gain);
  // Cause d: 22 Mrps is on the software prefetch's knee (its max is 22.4-22.6).
  h->push_back(miss("Fig. 8: SW prefetch / NEBULAbase p99 at 22 Mrps",
                    f.p99_at_22[2] / f.p99_at_22[0], 1.31));
  return f;
}

}  // namespace

bool nebula_evaluation(const FigureOptions& o) {
  if (const std::string bad = model::MemorySystem::nebula_simulation().invalid(); !bad.empty()) {
    std::fprintf(stderr, "nebula: the memory system does not add up: %s\n", bad.c_str());
    return false;
  }
  std::vector<Headline> h;
  const Fig6 f6 = fig6(o, &h);
  const bool valet_bound = table3(o, &h);
  double valet[3], nebula[3];
  fig7(o, &h, valet, nebula);
  const Fig8 f8 = fig8(o, f6.max_mrps[2], f6.max_mrps[1], &h);
  const auto close = [](double a, double b) { return a <= 1.1 * b && b <= 1.1 * a; };
  return report(
      o, "nebula evaluation", h,
      {{"Fig. 6: NEBULAbase sustains the most load, then SRQ, then RSS and RPCValet",
        f6.max_mrps[3] > f6.max_mrps[2] &&
            f6.max_mrps[2] > std::max(f6.max_mrps[0], f6.max_mrps[1])},
       {"Fig. 6: RPCValet's p99 below RSS's at 10 Mrps", f6.rss_over_valet_at_10 > 1},
       {"Table III: RPCValet memory-bound at every mix (>= 90% of the usable DRAM)", valet_bound},
       {"Fig. 7: smaller values, more throughput, for both",
        valet[0] > valet[1] && valet[1] > valet[2] && nebula[0] > nebula[1] &&
            nebula[1] > nebula[2]},
       {"Fig. 7: NEBULAbase above RPCValet where the DRAM binds (256, 512 B)",
        nebula[1] > valet[1] && nebula[2] > valet[2]},
       {"Fig. 8: NEBULA sustains the most load; the software prefetch's tail the worst at 22 Mrps",
        f8.max_mrps[1] > f8.max_mrps[0] && f8.p99_at_22[2] > f8.p99_at_22[0]},
       {"Fig. 8: below 16 Mrps the three policies' p99 within 10% (12 Mrps)",
        close(f8.p99_at_12[1], f8.p99_at_12[0]) && close(f8.p99_at_12[2], f8.p99_at_12[0])}});
}

}  // namespace nanopu::figures
