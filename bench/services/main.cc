// nanopu-bench-services: each stateful service's tail latency against offered
// load, measured with the real programs over net_memif, beside the timing
// model's curve for the same load and the paper's figures (nanoPU OSDI'21
// §5.3 and Figure 9 for MICA, Figure 10 for set intersection, Table 2 for
// one-sided RDMA; the tail-latency version §4.3 for chain replication).
//
// Per service: closed-loop throughput, then Poisson loads (MICA: fixed, the
// same for every variant; the others: a tenth of their closed-loop
// throughput to just past it), p50/p99 of each, the load where p99 doubles,
// a raw reference from the same run (an echo server at the same bytes, or
// one echo RPC through the switch), <out>/<service>.csv and .png (measured
// and modelled p99 against load) and every row and point in
// <out>/bench-services.json. For MICA also <out>/kv-modelled.csv and .png:
// the model's own Figure 9, over loads up to where its cores saturate.
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "bench/services/service_benches.h"

namespace {

constexpr const char* kUsage =
    "usage: nanopu-bench-services [--service=kv|rdma|chain|raft|dot|setint|compute|loopback|traditional|all] [--seconds=S] [--out=DIR]\n"
    "  Runs nanopu-server, nanopu-switch and nanopu-loadgen over net_memif and sweeps offered\n"
    "  load for each service: p50/p99 measured beside the timing model's (modelled) and the\n"
    "  paper's, closed-loop throughput beside an echo server's; dot: the optimal variant's\n"
    "  throughput over the naive one's across vector sizes (Figure 6's shape); setint: set\n"
    "  intersection p99 vs load, register-file vs traditional path, 1 core vs JBSQ (Figure 10);\n"
    "  compute: HD search, N-body, classifier and INT collector beside an echo server;\n"
    "  loopback: loopback and loopback-with-increment throughput vs message size (Figures 4, 5);\n"
    "  traditional: echo RTT and throughput, register-file vs traditional path on both ends,\n"
    "  16 B to 1 KB (Figure 3's comparison, measured, beside the model's).\n"
    "  --service  which services (default all)\n"
    "  --seconds  seconds per load point (default 1)\n"
    "  --out      directory for <service>.csv, <service>.png and bench-services.json\n"
    "             (default bench-services; created)\n"
    "  The machine should be otherwise idle: every figure is of this machine.\n";

}  // namespace

int main(int argc, char** argv) {
  nanopu::bench::ServicesOptions o;
  o.out = "bench-services";
  std::string which = "all";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--service=", 0) == 0) which = a.substr(10);
    else if (a.rfind("--seconds=", 0) == 0) o.seconds = std::atof(a.c_str() + 10);
    else if (a.rfind("--out=", 0) == 0) o.out = a.substr(6);
    else return std::fprintf(a == "--help" ? stdout : stderr, "%s", kUsage), a == "--help" ? 0 : 2;
  }
  if (which != "all" && which != "kv" && which != "rdma" && which != "chain" && which != "raft" && which != "dot" &&
      which != "setint" && which != "compute" && which != "loopback" &&
      which != "traditional")
    return std::fprintf(stderr, "nanopu-bench-services: --service=%s: use kv, rdma, chain, raft, dot, setint, compute, loopback, traditional or all\n%s",
                        which.c_str(), kUsage), 2;
  if (!(o.seconds > 0 && o.seconds <= 600))
    return std::fprintf(stderr, "nanopu-bench-services: --seconds must be in (0, 600]\n"), 2;
  if (mkdir(o.out.c_str(), 0755) != 0 && errno != EEXIST)
    return std::fprintf(stderr, "nanopu-bench-services: cannot create %s\n", o.out.c_str()), 1;
  o.work = "/tmp/nanopu-bench-services." + std::to_string(getpid());
  if (mkdir(o.work.c_str(), 0755) != 0)
    return std::fprintf(stderr, "nanopu-bench-services: cannot create %s\n", o.work.c_str()), 1;

  struct Service {
    const char* name;
    const char* title;
    const char* title_modelled;  // of the model-only curves, where a service has them
    nanopu::bench::ServiceResult (*run)(const nanopu::bench::ServicesOptions&);
  };
  const Service services[] = {
      {"kv", "MICA key-value store: p99 vs load (Figure 9), measured and modelled",
       "MICA key-value store: p99 vs load (Figure 9), modelled nanoPU", nanopu::bench::bench_kv},
      {"rdma", "one-sided RDMA ops: p99 vs load, measured and modelled", "", nanopu::bench::bench_rdma},
      {"chain", "chain replication, 3 replicas: p99 vs load, measured and modelled", "",
       nanopu::bench::bench_chain},
      {"raft", "Raft, 3 servers: p99 vs load, measured and modelled", "", nanopu::bench::bench_raft},
      {"dot", "", "", nanopu::bench::bench_dot},
      {"setint", "set intersection: p99 vs load (Figure 10), measured and modelled",
       "set intersection: p99 vs load (Figure 10), modelled nanoPU", nanopu::bench::bench_setint},
      {"compute", "", "", nanopu::bench::bench_compute},
      {"loopback", "", "", nanopu::bench::bench_loopback},
      {"traditional", "", "", nanopu::bench::bench_traditional},
  };
  std::vector<nanopu::bench::Row> rows;
  std::string curves;
  bool ok = true;
  std::printf("%-30s %10s %10s %10s %12s %12s %6s %9s\n", "curve", "offered/s", "p50 us", "p99 us",
              "p50 modelled", "p99 modelled", "clean", "modelled from");
  for (const Service& s : services) {
    if (which != "all" && which != s.name) continue;
    nanopu::bench::ServiceResult r = s.run(o);
    if (!r.ok) std::fprintf(stderr, "nanopu-bench-services: %s did not run to the end (logs in %s)\n", s.name,
                            o.work.c_str());
    ok = ok && r.ok;
    rows.insert(rows.end(), r.rows.begin(), r.rows.end());
    if (!r.modelled_curves.empty())
      ok = nanopu::bench::write_curves(o.out, std::string(s.name) + "-modelled",
                                       std::string(s.title_modelled), r.modelled_curves, true) && ok;
    if (!r.curves.empty()) {
      ok = nanopu::bench::write_curves(o.out, s.name, s.title, r.curves) && ok;
      curves += std::string(curves.empty() ? "" : ",") + "\"" + s.name + "\":" + nanopu::bench::curves_json(r.curves);
    }
  }
  nanopu::bench::print_table("nanopu-bench-services", rows);
  std::printf("  (a load where p99 doubles of -1: it never doubled within the loads offered)\n");
  const std::string json = o.out + "/bench-services.json";
  if (!nanopu::bench::write_json(json, "nanopu-bench-services", rows)) return 1;
  std::ofstream(o.out + "/bench-services.curves.json") << "{" << curves << "}\n";
  std::printf("  wrote %s, %s/bench-services.curves.json and a CSV + PNG per service in %s\n", json.c_str(),
              o.out.c_str(), o.out.c_str());
  std::printf("  every process's log is in %s\n", o.work.c_str());
  return ok ? 0 : 1;
}
