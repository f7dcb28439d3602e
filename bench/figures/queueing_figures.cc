// fig7, fig8, jbsq, nebula: load sweeps in virtual time (model/
// virtual_host.h), the HTS and core-selection policies shared with the
// live runtime.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>

#include "absl/strings/str_cat.h"
#include "bench/figures/figures.h"
#include "bench/figures/real_threads.h"
#include "model/timing/response_bound.h"
#include "model/timing/timing_model.h"
#include "model/queueing/erlang_c.h"
#include "model/queueing/virtual_host.h"

namespace nanopu::figures {
namespace {

using model::RequestClass;
using model::ServiceTime;
using model::VirtualHostConfig;

const std::vector<double> kLoads = {0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95};

ServiceTime fixed(double ns) {
  ServiceTime s;
  s.mean_ns = ns;
  return s;
}

// One core's worth of nanoPU: links, fast path, 160-cycle switches.
VirtualHostConfig base(const FigureOptions& o, uint32_t cores) {
  const model::TimingModel m(o.params);
  VirtualHostConfig c;
  c.cores = cores;
  c.context_switch_ns = m.context_switch_ns();
  c.fixed_response_ns = 2 * o.params.link_latency_ns + m.loopback_ns(8);
  c.requests = o.requests;
  c.seed = o.seed;
  return c;
}

double mean_service(const VirtualHostConfig& c) {
  double total = 0, mean = 0;
  for (const RequestClass& k : c.classes) total += k.share;
  for (const RequestClass& k : c.classes) {
    const ServiceTime& s = k.service;
    double m = s.kind == ServiceTime::Kind::kBimodal ? s.p_long * s.long_ns + (1 - s.p_long) * s.short_ns : s.mean_ns;
    if (s.misbehave_every != 0) m += (s.misbehave_ns - m) / s.misbehave_every;
    mean += k.share / total * m;
  }
  return mean;
}

// The capacity of c's cores in requests/s.
double capacity(const VirtualHostConfig& c) { return c.cores * 1e9 / mean_service(c); }

std::vector<model::ClassResult> run_at(VirtualHostConfig c, double load) {
  c.load_rps = load * capacity(c);
  return model::run_virtual_host(c).classes;
}

// p99 (µs) of every class at each load, one column per (variant, class).
struct Sweep {
  Table table;
  std::vector<std::vector<double>> p99_us;  // [variant*classes + class][load]
};
Sweep sweep(const std::vector<std::pair<std::string, VirtualHostConfig>>& variants) {
  Sweep s;
  s.table.columns.push_back("load");
  for (const auto& [name, c] : variants)
    for (const RequestClass& k : c.classes) s.table.columns.push_back(name + " " + k.name + " p99 us");
  s.p99_us.resize(s.table.columns.size() - 1);
  for (double load : kLoads) {
    std::vector<std::string> row = {absl::StrCat(load)};
    size_t col = 0;
    for (const auto& [name, c] : variants) {
      std::vector<model::ClassResult> r = run_at(c, load);
      for (auto& k : r) {
        const double us = k.quantile_ns(0.99) / 1000;
        s.p99_us[col++].push_back(us);
        row.push_back(absl::StrCat(us));
      }
    }
    s.table.rows.push_back(row);
    std::fprintf(stderr, "  load %.2f done\n", load);
  }
  return s;
}

size_t load_index(double load) {
  return static_cast<size_t>(std::find(kLoads.begin(), kLoads.end(), load) - kLoads.begin());
}

// The load in [lo, hi] (bisection) at which ratio(load), falling as load
// rises, crosses `target`; lo or hi when it does not.
double load_where(const std::function<double(double)>& ratio, double target, double lo, double hi) {
  if (ratio(lo) <= target) return lo;
  if (ratio(hi) >= target) return hi;
  for (int i = 0; i < 8; ++i) {
    const double mid = (lo + hi) / 2;
    (ratio(mid) > target ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

// p99 of class k of c at `load`, µs.
double p99_at(const VirtualHostConfig& c, double load, size_t k) {
  std::vector<model::ClassResult> r = run_at(c, load);
  return r[k].quantile_ns(0.99) / 1000;
}

// p99 (µs) of class k at `load` with at least 200,000 requests (a steady
// reference for the real-thread runs beside it).
double steady_p99_at(VirtualHostConfig c, double load, size_t k) {
  c.requests = std::max<uint64_t>(c.requests, 200000);
  return p99_at(c, load, k);
}

// Highest load (bisection) at which every class's p99 stays within slo_ns.
double max_load_at_slo(const VirtualHostConfig& c, double slo_ns, double lo, double hi) {
  for (int i = 0; i < 9; ++i) {
    const double mid = (lo + hi) / 2;
    std::vector<model::ClassResult> r = run_at(c, mid);
    bool ok = true;
    for (auto& k : r) ok &= k.quantile_ns(0.99) <= slo_ns;
    (ok ? lo : hi) = mid;
  }
  return lo;
}

}  // namespace

bool fig7(const FigureOptions& o) {
  VirtualHostConfig c = base(o, 1);
  c.classes = {{"priority 0", 0, 0.5, fixed(500), {}}, {"priority 1", 1, 0.5, fixed(500), {}}};
  VirtualHostConfig tis = c;
  tis.mode = sched::SchedMode::kTis;
  std::printf("Figure 7: p99 vs load, HTS vs TIS (1 core, 500 ns, Poisson; modelled)\n");
  Sweep s = sweep({{"HTS", c}, {"TIS", tis}});
  for (const auto& row : s.table.rows)
    std::printf("  load %-5s HTS p0 %7.2f p1 %7.2f   TIS p0 %7.2f p1 %7.2f us\n", row[0].c_str(),
                std::stod(row[1]), std::stod(row[2]), std::stod(row[3]), std::stod(row[4]));
  const size_t hi = load_index(0.9), lo = load_index(0.05);
  for (size_t i = 0; i < kLoads.size(); ++i)
    std::printf("  load %.2f: TIS/HTS p99 priority 0 %.2f, priority 1 %.2f\n", kLoads[i],
                s.p99_us[2][i] / s.p99_us[0][i], s.p99_us[3][i] / s.p99_us[1][i]);
  const bool ok = write_figure(o, "fig7", s.table, "line", "p99 response vs load: HTS vs TIS (modelled)", "p99 us");
  // HTS's tail gain over TIS for the high-priority thread at "high and low
  // load" (nanoPU (OSDI'21) §5.2.2, which names neither load): 0.9, below the
  // 96% the paper sustains, and the sweep's lowest, 0.05. The high-load one
  // misses (docs/figures.md), so the figure asserts the paper's shape.
  Headline high{"TIS/HTS p99, priority 0, load 0.9", s.p99_us[2][hi] / s.p99_us[0][hi], 4.0};
  Headline low{"TIS/HTS p99, priority 0, load 0.05", s.p99_us[2][lo] / s.p99_us[0][lo], 6.5};
  high.known_miss = true;
  bool p0_below = true, p1_below = true;
  for (size_t i = 0; i < kLoads.size(); ++i) {
    p0_below &= s.p99_us[0][i] < s.p99_us[2][i];
    p1_below &= s.p99_us[1][i] < s.p99_us[3][i];
  }
  const size_t mid = load_index(0.5);
  const auto ratio = [&](size_t i) { return s.p99_us[2][i] / s.p99_us[0][i]; };
  // Why it misses: the paper names neither "high" nor "low" load, and the
  // gain moves with load at both ends. Low: HTS's p99 falls to its floor
  // (links, fast path, one switch, 500 ns of service) while TIS's stays a
  // whole 5 us tick above it (half the time the core sits with the idle
  // priority-1 thread). High: TIS's priority-0 p99 is at most a tick plus
  // its own queue, so 4x at 0.9 would need TIS p99 = 4 x HTS's.
  const auto gain = [&](double load) { return p99_at(tis, load, 0) / p99_at(c, load, 0); };
  std::printf("  why: the paper names neither load. Low load: HTS's floor is %.2f us and TIS's p99 stays near a\n"
              "  whole tick above it, so the gain rises as load falls: %.2fx at 0.01; the paper's 6.5x is at load\n"
              "  %.3f. High load: the model's gain is 4x at load %.2f; at 0.9 the paper's 4x would need TIS's\n"
              "  priority-0 p99 at %.2f us, beyond a 5 us tick plus its own queue (%.2f us here): a TIS tick\n"
              "  costing about %.1f us more than a 50 ns switch (not published), or a \"high load\" nearer %.2f.\n",
              (c.fixed_response_ns + c.context_switch_ns + 500) / 1000, gain(0.01), load_where(gain, 6.5, 0.005, 0.05),
              load_where(gain, 4.0, 0.05, 0.9), 4 * s.p99_us[0][hi], s.p99_us[2][hi],
              4 * s.p99_us[0][hi] - s.p99_us[2][hi], load_where(gain, 4.0, 0.05, 0.9));
  // HTS and TIS with real threads (nanopu-sim): the `service` app's two
  // threads at priorities 0 and 1 on one core, fed by a client each through
  // a switch; TIS's tick is a simulation wakeup (a waiting thread keeps the
  // core until its message or the tick). The real path is the switch's two
  // extra hops and each message's counted costs longer than the model's.
  Table real{{"load", "real threads HTS priority 0 p99 us", "real threads HTS priority 1 p99 us",
              "real threads TIS priority 0 p99 us", "real threads TIS priority 1 p99 us", "model HTS priority 0 p99 us",
              "model HTS priority 1 p99 us"},
             {}};
  bool real_ok = true, real_order = true, real_tis_above = true;
  double worst = 0;
  std::vector<double> real_gain;
  std::printf("  real threads (nanopu-sim): load, p99 priority 0 / 1 us, HTS then TIS, and the model's HTS:\n");
  const std::string tis_flags = absl::StrCat("--thread_priorities=0,1 --scheduler=tis --tis_period_ns=", c.tis_period_ns);
  for (double load : {0.05, 0.5, 0.9}) {
    const std::string clients[2] = {"--service_ns=500", "--service_ns=500"};
    const double rate = load * capacity(c) / 2;
    const std::vector<double> p = two_thread_p99_us(o, "fig7 real threads, HTS", "--thread_priorities=0,1", clients, rate);
    // TIS at 0.9 is past what real threads can serve: between ticks the
    // core idles with a thread that has nothing while the other's queue
    // waits, and each message's counted costs come on top of the model's
    // 500 ns (a 6,000-request run served priority 1 at 0.59 of its 0.9 M/s;
    // docs/figures.md, "With real threads"). Its queue, and the run, would grow without end.
    const bool tis_runs = load < 0.9;
    std::vector<double> q = {0, 0};
    if (!p.empty() && tis_runs) q = two_thread_p99_us(o, "fig7 real threads, TIS", tis_flags, clients, rate);
    if (p.empty() || q.empty()) {
      real_ok = false;
      break;
    }
    const double m0 = steady_p99_at(c, load, 0), m1 = steady_p99_at(c, load, 1);
    if (tis_runs) {
      std::printf("    %.2f  HTS %5.2f / %6.2f   TIS %5.2f / %6.2f   model HTS %5.2f / %6.2f   TIS/HTS priority 0 %.2f\n",
                  load, p[0], p[1], q[0], q[1], m0, m1, q[0] / p[0]);
      real_tis_above &= q[0] > p[0];
      real_gain.push_back(q[0] / p[0]);
    } else {
      std::printf("    %.2f  HTS %5.2f / %6.2f   TIS past its capacity   model HTS %5.2f / %6.2f\n", load, p[0], p[1], m0, m1);
    }
    real.rows.push_back({absl::StrCat(load), absl::StrCat(p[0]), absl::StrCat(p[1]), tis_runs ? absl::StrCat(q[0]) : "",
                         tis_runs ? absl::StrCat(q[1]) : "", absl::StrCat(m0), absl::StrCat(m1)});
    if (load >= 0.5) real_order &= p[0] < p[1];
    worst = std::max(worst, std::fabs(p[0] / m0 - 1));
  }
  real_ok = real_ok && write_figure(o, "fig7_threads", real, "line", "p99 vs load, HTS and TIS, real threads (modelled time)",
                                    "p99 us");
  const bool real_gain_falls = real_gain.size() == 2 && real_gain[0] > real_gain[1];
  return report(o, "fig7", {high, low},
                {{"real threads (HTS): priority 0's p99 below priority 1's at loads 0.5 and 0.9", real_ok && real_order},
                 {absl::StrCat("real threads' priority-0 p99 within 40% of the model's (worst ", static_cast<int>(worst * 100),
                               "%)"),
                  real_ok && worst <= 0.4},
                 {"real threads: TIS's priority-0 p99 above HTS's at loads 0.05 and 0.5", real_ok && real_tis_above},
                 {"real threads: the TIS/HTS priority-0 gain is larger at 0.05 than at 0.5", real_ok && real_gain_falls},
                 {"HTS priority-0 p99 below TIS's at every load", p0_below},
                 {"HTS priority-1 p99 below TIS's at every load", p1_below},
                 {"TIS/HTS priority-0 gain rises as load falls (0.9 < 0.5 < 0.05)",
                  ratio(hi) < ratio(mid) && ratio(mid) < ratio(lo)}}) &&
         ok;
}

// fig8 with real threads (nanopu-sim): two priority-0 threads on one core,
// the misbehaving one's client asking 5 us of 1% of its requests at random
// (the model: every 100th); bounded (t0 = 1 us) and not. *order: bounded
// under half of unbounded at every load; *gap: the largest relative gap to
// the model's bounded p99. False if a run failed.
static bool fig8_real_threads(const FigureOptions& o, const VirtualHostConfig& c, Table* real, bool* order, double* gap) {
  *real = Table{{"load", "real threads bounded well-behaved p99 us", "real threads unbounded well-behaved p99 us",
                 "model bounded well-behaved p99 us"},
                {}};
  *order = true;
  std::printf("  with real threads (nanopu-sim): load, well-behaved p99 bounded / unbounded us, model bounded:\n");
  for (double load : {0.5, 0.9}) {
    const std::string clients[2] = {"--service_ns=500",
                                    "--service_ns=500 --service_long_ns=5000 --service_long_fraction=0.01"};
    const std::vector<double> b =
        two_thread_p99_us(o, "fig8 bounded", "--bounded=true --t0_ns=1000", clients, load * capacity(c) / 2);
    const std::vector<double> u =
        two_thread_p99_us(o, "fig8 unbounded", "--bounded=false", clients, load * capacity(c) / 2);
    if (b.empty() || u.empty()) return false;
    const double model = steady_p99_at(c, load, 0);
    std::printf("    %.2f  %5.2f / %6.2f   model %5.2f\n", load, b[0], u[0], model);
    real->rows.push_back({absl::StrCat(load), absl::StrCat(b[0]), absl::StrCat(u[0]), absl::StrCat(model)});
    *order &= b[0] < u[0] / 2;
    *gap = std::max(*gap, std::fabs(b[0] / model - 1));
  }
  return write_figure(o, "fig8_threads", *real, "line", "bounded processing time, real threads (modelled time)", "p99 us");
}

bool fig8(const FigureOptions& o) {
  VirtualHostConfig c = base(o, 1);
  ServiceTime bad = fixed(500);
  bad.misbehave_every = 100;
  bad.misbehave_ns = 5000;
  c.classes = {{"well-behaved", 0, 0.5, fixed(500), {}}, {"misbehaving", 0, 0.5, bad, {}}};
  c.t0_ns = 1000;
  VirtualHostConfig off = c;
  off.bounded = false;
  // The papers leave open whether a demoted thread gets priority 0 back for
  // its next message (--demotion): both are drawn; the headline is the
  // default's (permanent).
  VirtualHostConfig until_done = c;
  until_done.demotion = DemotionMode::kUntilDone;
  std::printf("Figure 8: bounded message-processing time (1 core, t0 = 1 us; modelled)\n");
  Sweep s = sweep({{"bounded", c}, {"unbounded", off}, {"bounded until_done", until_done}});
  for (const auto& row : s.table.rows)
    std::printf("  load %-5s bounded: well-behaved %6.2f misbehaving %6.2f   unbounded: %6.2f %6.2f   "
                "until_done: %6.2f %6.2f us\n",
                row[0].c_str(), std::stod(row[1]), std::stod(row[2]), std::stod(row[3]), std::stod(row[4]),
                std::stod(row[5]), std::stod(row[6]));
  double worst = 0, worst_until_done = 0;
  for (size_t i = 0; i < kLoads.size() && kLoads[i] <= 0.9; ++i) {
    worst = std::max(worst, s.p99_us[0][i]);
    worst_until_done = std::max(worst_until_done, s.p99_us[4][i]);
  }
  std::printf("  well-behaved p99, max up to load 0.9: permanent demotion %.2f us, until_done %.2f us\n",
              worst, worst_until_done);
  const model::TimingModel m(o.params);
  // The bound formula against the scheduler, not against the paper's own
  // arithmetic: the worst response found by simulation (HtsPolicy in
  // virtual time, model/timing/response_bound.h) for k priority-0 threads.
  std::printf("  bound vs simulated worst case (well-behaved at 999 ns, t0 = 1 us):\n");
  bool within_strict = true, above_paper_by_one_switch = true, tight = true;
  double worst_k2 = 0;
  for (unsigned k = 1; k <= 4; ++k) {
    model::WorstCaseSearch ws;
    ws.k = k;
    ws.offsets = 200;
    const double w = model::worst_case_response_ns(m, ws);
    const double paper_formula = m.response_bound_ns(ws.t0_ns, k), strict = m.strict_response_bound_ns(ws.t0_ns, k);
    std::printf("    k = %u: simulated %.3f us, t_n + k t0 + (k-1) t_c %.3f us, t_n + k (t0 + t_c) %.3f us\n", k,
                w / 1000, paper_formula / 1000, strict / 1000);
    within_strict &= w <= strict + 0.01;
    tight &= w >= strict - k * (ws.t0_ns - ws.service_ns) - 0.01;
    if (k >= 2) above_paper_by_one_switch &= w > paper_formula;
    if (k == 2) worst_k2 = w;
  }
  const bool ok = write_figure(o, "fig8", s.table, "line", "p99 vs load, bounded processing time (modelled)", "p99 us");
  Table real;
  bool real_order = false;
  double real_worst_gap = 0;
  const bool real_ok = fig8_real_threads(o, c, &real, &real_order, &real_worst_gap);
  Headline wb{"well-behaved p99 max up to load 0.9, bounded (paper: never above), us", worst, 2.1};
  wb.upper_bound = true;
  return report(o, "fig8", {wb, {"simulated worst case, k = 2, us (paper's bound)", worst_k2 / 1000, 2.15}},
                {{"real threads: bounded well-behaved p99 under half the unbounded's at loads 0.5 and 0.9",
                  real_ok && real_order},
                 {absl::StrCat("real threads' bounded well-behaved p99 within 40% of the model's (worst ",
                               static_cast<int>(real_worst_gap * 100), "%)"),
                  real_ok && real_worst_gap <= 0.4},
                 {"simulated worst case within t_n + k (t0 + t_c) for k = 1..4, and reaching it", within_strict && tight},
                 {"the paper's (k-1) t_c is exceeded, by one switch, for k = 2..4 (docs/figures.md)",
                  above_paper_by_one_switch}}) &&
         ok;
}

// JBSQ's experiment with real threads (nanopu-sim): nanopu-server's
// `service` app on four worker cores, every thread bound to one context
// (--shared_context), the NIC's core selection drawing a core per message
// or JBSQ(2); a client's Poisson requests ask 500 ns, 0.5% of them 5 us
// (Thread::compute, counted). The model's "RSS" draws a core per request
// too. Rows: load, then p99 µs of real random, real JBSQ, model RSS, model
// JBSQ; false if a run failed. 40,000 requests a real run whatever
// --requests says (fewer leave the p99 to a handful of long requests), and
// 200,000 a model point beside them (cheap).
bool jbsq_real_threads(const FigureOptions& o, const VirtualHostConfig& rss, const VirtualHostConfig& j,
                       const std::vector<double>& loads, Table* t) {
  t->columns = {"load", "real threads random p99 us", "real threads JBSQ(2) p99 us", "model RSS p99 us",
                "model JBSQ(2) p99 us"};
  for (double load : loads) {
    const double rate = load * capacity(j);
    std::vector<std::string> row = {absl::StrCat(load)};
    for (const char* policy : {"random", "jbsq"}) {
      const double p99 = four_core_p99_us(o, policy, rate);
      if (p99 < 0) return false;
      row.push_back(absl::StrCat(p99));
    }
    row.push_back(absl::StrCat(steady_p99_at(rss, load, 0)));
    row.push_back(absl::StrCat(steady_p99_at(j, load, 0)));
    t->rows.push_back(row);
  }
  return true;
}

// The tail-latency version's Fig. 5: JBSQ-PRE (short requests a priority
// above long ones, preempting them) "is even better ... when all cores are
// busy processing long requests" and "sustains higher overall load (almost
// 100%)". Its short requests against JBSQ's requests from load 0.6 (below,
// a long request rarely holds every core, and a second thread on each core
// costs its switches: 0.65 against 0.60 us at 0.05), and at 0.95 within the
// 10x-mean SLO that JBSQ's p99 is past. s's columns: RSS, JBSQ, JBSQ-PRE
// short, JBSQ-PRE long.
std::vector<Shape> jbsq_pre_shapes(const Sweep& s, double slo_ns) {
  bool below = true;
  for (size_t i = load_index(0.6); i < kLoads.size(); ++i) below &= s.p99_us[2][i] < s.p99_us[1][i];
  const size_t top = load_index(0.95);
  std::printf("  JBSQ-PRE (tail version Fig. 5): short p99 at load 0.95 %.2f us against JBSQ's %.2f (SLO %.1f us)\n",
              s.p99_us[2][top], s.p99_us[1][top], slo_ns / 1000);
  return {{"JBSQ-PRE's short requests below JBSQ's p99 at every load from 0.6 (tail version Fig. 5)", below},
          {"JBSQ-PRE's short requests within 10x mean at load 0.95, JBSQ's past it",
           s.p99_us[2][top] * 1000 <= slo_ns && s.p99_us[1][top] * 1000 > slo_ns}};
}

bool jbsq(const FigureOptions& o) {
  ServiceTime bimodal;
  bimodal.kind = ServiceTime::Kind::kBimodal;
  bimodal.p_long = 0.005;
  bimodal.short_ns = 500;
  bimodal.long_ns = 5000;
  VirtualHostConfig j = base(o, 4);
  j.classes = {{"all", 0, 1, bimodal, {}}};
  VirtualHostConfig rss = j;
  rss.core_select = CoreSelectPolicy::kRss;
  VirtualHostConfig prio = j;  // short requests at priority 0, long ones at 1
  prio.classes = {{"short", 0, 0.995, fixed(500), {}}, {"long", 1, 0.005, fixed(5000), {}}};
  std::printf("JBSQ: RSS vs JBSQ(2) vs JBSQ(2) + priorities (4 cores, 99.5%% 500 ns / 0.5%% 5 us; modelled)\n");
  Sweep s = sweep({{"RSS", rss}, {"JBSQ", j}, {"JBSQ+prio", prio}});
  for (const auto& row : s.table.rows)
    std::printf("  load %-5s RSS %7.2f  JBSQ %7.2f  JBSQ+prio short %7.2f long %7.2f us\n", row[0].c_str(),
                std::stod(row[1]), std::stod(row[2]), std::stod(row[3]), std::stod(row[4]));
  // "tail response time is reduced 5x at low load" (nanoPU (OSDI'21)
  // §5.2.3): at the sweep's lowest load, 0.05, as fig7's "low load"; the
  // gain at every load is printed beside it.
  for (size_t i = 0; i < kLoads.size() && kLoads[i] <= 0.5; ++i)
    std::printf("  load %.2f: RSS/JBSQ p99 %.2f\n", kLoads[i], s.p99_us[0][i] / s.p99_us[1][i]);
  const size_t lo = load_index(0.05);
  bool jbsq_below = true;
  for (size_t i = 0; i < kLoads.size(); ++i) jbsq_below &= s.p99_us[1][i] <= s.p99_us[0][i];
  // "~15% more load": the highest load with p99 within 10x the mean service time.
  const double slo = 10 * mean_service(j);
  const double rss_max = max_load_at_slo(rss, slo, 0.05, 0.999);
  const double jbsq_max = max_load_at_slo(j, slo, 0.05, 0.999);
  std::printf("  max load with p99 <= %.1f us: RSS %.3f, JBSQ %.3f\n", slo / 1000, rss_max, jbsq_max);
  // The paper gives no SLO; how the gain moves with it:
  for (double k : {20.0, 50.0}) {
    const double r = max_load_at_slo(rss, k * mean_service(j), 0.05, 0.999);
    const double q = max_load_at_slo(j, k * mean_service(j), 0.05, 0.999);
    std::printf("  max load with p99 <= %.0fx mean: RSS %.3f, JBSQ %.3f (%.2fx)\n", k, r, q, q / r);
  }
  // Why 5x is not at load 0.05: a short request's p99 sees the long ones
  // only where more than 1% of short requests find their core busy with a
  // long one. Under RSS a core is busy a fraction `load` of the time, and
  // long requests are this share of its busy time:
  const double long_share = bimodal.p_long * bimodal.long_ns / mean_service(j);
  const double sees_long = 0.01 / long_share;  // load at which load * long_share = 1%
  const double at_sees = p99_at(rss, sees_long, 0) / p99_at(j, sees_long, 0);
  std::printf("  why 5x is not at load 0.05: long requests are %.1f%% of a core's busy time, so fewer than 1%%\n"
              "  of requests meet one below load %.2f (derived), where no p99 can show them; there RSS/JBSQ is\n"
              "  %.2fx, and 5.5x at 0.2-0.3. The 15%%: the paper states no SLO; the gain is 2.0x at 10x the\n"
              "  mean service time and 1.07x at 50x (below).\n",
              long_share * 100, sees_long, at_sees);
  const std::vector<Shape> pre = jbsq_pre_shapes(s, slo);
  const bool ok = write_figure(o, "jbsq", s.table, "line", "p99 vs load: RSS vs JBSQ (modelled)", "p99 us");
  // The same with real threads: the model's gain should be theirs.
  Table real;
  const std::vector<double> real_loads = {sees_long, 0.3, 0.5, 0.7};
  const bool real_ok = jbsq_real_threads(o, rss, j, real_loads, &real) &&
                       write_figure(o, "jbsq_threads", real, "line", "p99 vs load, real threads (modelled time)", "p99 us");
  bool real_below = real_ok;
  double worst_gap = 0;
  std::printf("  real threads (nanopu-sim, 4 worker cores): load, p99 random / JBSQ(2) us (gain), model's gain:\n");
  for (const auto& row : real.rows) {
    const double rr = std::stod(row[1]), rj = std::stod(row[2]), mr = std::stod(row[3]), mj = std::stod(row[4]);
    std::printf("    %.2f  %6.2f / %5.2f (%.2fx)   model %.2fx\n", std::stod(row[0]), rr, rj, rr / rj, mr / mj);
    real_below &= rj <= rr;
    worst_gap = std::max(worst_gap, std::fabs((rr / rj) / (mr / mj) - 1));
  }
  // "Low load" is read as the lowest load at which a p99 can show the long
  // requests at all (derived above from the service times, not chosen from
  // the curve); load 0.05's gain is printed beside it. The 15% misses
  // (docs/figures.md): the figure asserts the shape.
  std::printf("  RSS/JBSQ p99 at load 0.05: %.2fx (no p99 sees a long request there)\n", s.p99_us[0][lo] / s.p99_us[1][lo]);
  Headline low{absl::StrCat("RSS/JBSQ p99, lowest load a p99 sees long requests (", absl::SixDigits(sees_long), ")"),
               at_sees, 5.0};
  Headline more{"JBSQ/RSS max load at p99 <= 10x mean", jbsq_max / rss_max, 1.15};
  more.known_miss = true;
  return report(o, "jbsq", {low, more},
                {{"JBSQ p99 at or below RSS's at every load", jbsq_below},
                 pre[0],
                 pre[1],
                 {"JBSQ sustains more load than RSS at p99 <= 10x mean", jbsq_max > rss_max},
                 {"real threads: JBSQ p99 at or below random's at every load", real_below},
                 {absl::StrCat("real threads' gain within 35% of the model's at every load (worst ",
                               static_cast<int>(worst_gap * 100), "%)"),
                  real_ok && worst_gap <= 0.35}}) &&
         ok;
}

bool nebula(const FigureOptions& o) {
  // NEBULA Table I: an M/G/64 server behind one queue (JBSQ(2) here), SLO
  // p99 <= 10x the mean service time; pure queueing (no network, no switches).
  VirtualHostConfig c;
  c.cores = 64;
  c.context_switch_ns = 0;
  c.requests = o.requests;
  c.seed = o.seed;
  ServiceTime det = fixed(1000);
  ServiceTime exp = fixed(1000);
  exp.kind = ServiceTime::Kind::kExponential;
  ServiceTime bi;
  bi.kind = ServiceTime::Kind::kBimodal;
  bi.p_long = 0.1;
  bi.short_ns = 500;
  bi.long_ns = 5500;
  Table t{{"distribution", "max load at SLO", "NEBULA Table I"}, {}};
  std::vector<Headline> h;
  std::printf("NEBULA Table I: max load with p99 <= 10x mean, 64 cores, JBSQ(2) (modelled)\n");
  for (const auto& [name, s, paper] : std::vector<std::tuple<std::string, ServiceTime, double>>{
           {"deterministic", det, 0.999}, {"exponential", exp, 0.995}, {"bimodal", bi, 0.940}}) {
    c.classes = {{name, 0, 1, s, {}}};
    const double max_load = max_load_at_slo(c, 10 * 1000, 0.5, 0.9999);
    std::printf("  %-14s %.3f (paper %.3f)\n", name.c_str(), max_load, paper);
    t.rows.push_back({name, absl::StrCat(max_load), absl::StrCat(paper)});
    h.push_back({name + " max load", max_load, paper});
  }
  // §IV-C's sizing: E[N̂q] by Erlang-C for 64 cores at A = 63, "E[Nq] = 54";
  // 10x it is NEBULA's buffer (540 entries). (Table I's "99th% Q. depth"
  // column is not reproduced: at these loads, a hair below saturation, the
  // queue an arrival finds grows with the run's length — 125 / 94 / 157 at
  // 20,000 requests, 548 / 545 / 120 at 200,000 — docs/figures.md.)
  const double e_nq = model::mean_queued(64, 63);
  std::printf("  Erlang-C E[Nq], 64 cores at A = 63: %.1f (paper 54); NEBULA's buffer, 10 E[Nq]: %.0f entries\n", e_nq,
              10 * e_nq);
  h.push_back({"Erlang-C E[Nq], 64 cores at A = 63", e_nq, 54});
  const bool ok = write_figure(o, "nebula", t, "bar", "Max load at SLO (p99 <= 10x mean), modelled", "load");
  const bool table1 = report(o, "nebula", h) && ok;
  const bool fig2 = nebula_memory(o);
  return nebula_evaluation(o) && fig2 && table1;
}

}  // namespace nanopu::figures
