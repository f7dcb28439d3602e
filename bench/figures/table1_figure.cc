// nanoPU (OSDI'21) Table 1 from the ten applications' own code: each
// service's median and 99th percentile response time at low load, every
// host on one modelled clock (nanopu-sim running nanopu-server's service and
// nanopu-loadgen's client unchanged), beside the paper's column.
//
// The paper measured three rows at the client (Raft, chain, one-sided RDMA:
// its asterisks; here the raft, chain and rdma figures' topologies) and the
// rest wire to wire at the server. A client here measures a round trip, so
// each of those rows is also printed less the client's share: an echo's
// round trip on the same pair less the model's wire-to-wire time of that
// echo (derived, not measured by the paper). Counted time charges the NICs'
// stages, the register-file words, the thread switches and the work a
// service declares (Thread::charge_work), not the instructions of its own
// code (issue 74), so a row that computes is expected below the paper.
#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "bench/figures/figures.h"
#include "bench/figures/sim_run.h"
#include "model/timing/timing_model.h"

namespace nanopu::figures {
namespace {

struct Row {
  std::string app;
  std::string topology;
  Net net;
  double paper_p50_us = 0, paper_p99_us = 0;  // 0: N/A in the paper
  bool at_client = false;                     // the paper's asterisk
  bool known_miss = true;  // docs/figures.md, "Table 1" says why (RDMA's wires make its time)
};

std::vector<Row> rows(uint64_t count) {
  const auto one = [&](const std::string& app, const std::string& server, const std::string& client, double p50,
                       double p99) {
    return Row{app, pair_topology(server, client + closed_loop(count)), Net{}, p50, p99, false};
  };
  const auto paper = [&](const std::string& app, const ServiceTopology& t, double p50, double p99, bool miss) {
    return Row{app, t.text, t.net, p50, p99, true, miss};
  };
  const std::string rules = " --classifier_rules=100000";  // the paper's 100K
  return {
      one("MICA", "--app=kv", "--service=kv --kv_keys=10000 --kv_set_fraction=0.5", 0.40, 0.50),
      paper("Raft", raft_topology(3, count), 3.08, 3.26, true),
      paper("Chain replication", chain_topology(count), 1.10, 1.40, true),
      one("Set algebra", "--app=setint", "--service=setint", 0.60, 1.50),
      one("HD search", "--app=hdsearch", "--service=hdsearch", 0.80, 1.20),
      one("N-body", "--app=nbody", "--service=nbody", 0.35, 0),
      one("INT processing", "--app=int", "--service=int", 0.13, 0),
      one("Packet classifier", "--app=classifier" + rules, "--service=classifier" + rules, 0.90, 2.20),
      one("Othello", "--app=othello", "--service=othello", 0.90, 1.70),
      paper("One-sided RDMA", rdma_topology("mix", count), 0.68, 0, false),
  };
}

double in_us(uint64_t ns) { return static_cast<double>(ns) / 1000.0; }

}  // namespace

bool table1(const FigureOptions& o) {
  std::printf("table1: nanoPU (OSDI'21) Table 1, the ten applications' own code at low load, every host on one "
              "modelled clock\n");
  const uint64_t count = std::clamp<uint64_t>(o.requests / 10, 200, 5000);
  // The client's share of a row measured wire to wire: an echo's round trip
  // on the same pair less the model's wire-to-wire time of that echo.
  const SimRun echo = simulate(o, "echo", pair_topology("--app=echo", "--service=echo --size=64" + closed_loop(count)),
                               Net{}, Charge::kCounted);
  if (!echo.ok) {
    std::fprintf(stderr, "  echo: %s\n", echo.error.c_str());
    return false;
  }
  const double client_share_us =
      in_us(echo.result.latency_ns.quantile(0.5)) - model::TimingModel(o.params).wire_to_wire_ns(64) / 1000;
  std::printf("  the client's share of a pair's round trip (echo p50 %.3f us less its modelled wire-to-wire): %.3f us\n",
              in_us(echo.result.latency_ns.quantile(0.5)), client_share_us);
  Table t{{"application", "statistic", "counted us (at the client)", "wire to wire us (derived)", "paper us",
           "paper measured", "trace hash"},
          {}};
  std::printf("  %-18s %-4s %9s %11s %8s   %s\n", "application", "stat", "counted", "wire-wire", "paper", "");
  std::vector<Headline> hs;
  std::map<std::string, double> p50;  // by application
  bool all_ok = true;
  for (const Row& r : rows(count)) {
    const SimRun run = simulate(o, r.app, r.topology, r.net, Charge::kCounted);
    if (!run.ok) {
      std::fprintf(stderr, "  %s: %s\n", r.app.c_str(), run.error.c_str());
      all_ok = false;
      continue;
    }
    for (const auto& [stat, q, paper] : {std::tuple<const char*, double, double>{"p50", 0.5, r.paper_p50_us},
                                         {"p99", 0.99, r.paper_p99_us}}) {
      const double at_client = in_us(run.result.latency_ns.quantile(q));
      const double compared = r.at_client ? at_client : at_client - client_share_us;
      if (q == 0.5) p50[r.app] = compared;
      const std::string paper_s = paper > 0 ? absl::StrFormat("%.2f", paper) : "N/A";
      std::printf("  %-18s %-4s %9.3f %11s %8s   %s\n", r.app.c_str(), stat, at_client,
                  r.at_client ? "" : absl::StrFormat("%.3f", compared).c_str(), paper_s.c_str(),
                  r.at_client ? "(paper: at the client)" : "(paper: wire to wire)");
      t.rows.push_back({r.app, stat, absl::StrFormat("%.3f", at_client),
                        r.at_client ? "" : absl::StrFormat("%.3f", compared), paper > 0 ? paper_s : "",
                        r.at_client ? "at the client" : "wire to wire",
                        absl::StrFormat("%016x", run.trace_hash)});
      if (paper > 0)
        hs.push_back({absl::StrCat(r.app, " ", stat, " us (counted", r.at_client ? ")" : ", wire to wire)"), compared,
                      paper, false, r.known_miss});
    }
  }
  const bool wrote = write_figure(o, "table1", t, "bar", "nanoPU Table 1, real code (modelled)", "us");
  // What the rows' topologies give whatever the services' own cost: Raft's
  // write crosses the 300 ns switch four times (the client to the leader, a
  // follower and back) and so stays above chain replication's four
  // traversals of a zero-latency switch and one-sided RDMA's two of a
  // 212 ns one, as in the paper; every row answered.
  std::vector<Shape> shapes = {
      {"every application answered every request, each reply checked", all_ok},
      {"Raft's p50 above chain replication's and one-sided RDMA's (paper 3.08 > 1.10, 0.68)",
       all_ok && p50["Raft"] > p50["Chain replication"] && p50["Raft"] > p50["One-sided RDMA"]}};
  const bool pass = report(o, "table1", hs, shapes) && wrote;
  std::printf(
      "  cause of the misses: counted time charges the NICs' stages, each message's register-file work, the "
      "thread switches and the work a service declares (charge_work), not the instructions of the services' "
      "own code, whose cost on the paper's cores is not published (issue 74; docs/figures.md, \"table1\").\n");
  return pass && all_ok;
}

}  // namespace nanopu::figures
