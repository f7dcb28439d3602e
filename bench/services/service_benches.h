// nanopu-bench-services: one function per service. Each starts the service's
// deployment as a user would (nanopu-server, nanopu-switch, over net_memif),
// measures closed-loop throughput, sweeps offered Poisson load with
// nanopu-loadgen, and returns its table rows (measured beside a raw
// reference from the same run; modelled beside the paper) and curves.
#pragma once

#include <string>
#include <vector>

#include "bench/bench_table.h"
#include "bench/services/sweep.h"

namespace nanopu::bench {

struct ServicesOptions {
  std::string work;   // sockets and logs
  std::string out;    // CSV, PNG
  double seconds = 1;  // per load point
};

struct ServiceResult {
  std::vector<Row> rows;
  std::vector<Curve> curves;
  std::vector<Curve> modelled_curves;  // the model alone, over its own range of loads
  bool ok = false;  // every deployment came up and every closed-loop run answered
};

[[nodiscard]] ServiceResult bench_kv(const ServicesOptions& o);
[[nodiscard]] ServiceResult bench_rdma(const ServicesOptions& o);
[[nodiscard]] ServiceResult bench_chain(const ServicesOptions& o);
[[nodiscard]] ServiceResult bench_raft(const ServicesOptions& o);
[[nodiscard]] ServiceResult bench_dot(const ServicesOptions& o);
// compute_benches.cc: set intersection (Figure 10), and HD search, N-body,
// the classifier and the INT collector beside an echo server.
[[nodiscard]] ServiceResult bench_setint(const ServicesOptions& o);
[[nodiscard]] ServiceResult bench_compute(const ServicesOptions& o);
// loopback_benches.cc: loopback and loopback-with-increment throughput
// against message size (Figures 4 and 5).
[[nodiscard]] ServiceResult bench_loopback(const ServicesOptions& o);
// traditional_benches.cc: echo on the register file against the traditional
// path, both ends, 16 B to 1 KB (Figure 3's comparison, measured).
[[nodiscard]] ServiceResult bench_traditional(const ServicesOptions& o);

}  // namespace nanopu::bench
