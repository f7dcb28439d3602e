#include "bench/figures/nebula_host.h"

#include <algorithm>
#include <vector>

namespace nanopu::figures {

NebulaPoint nebula_at(const FigureOptions& o, const NebulaServer& s, const NebulaSystem& y,
                      double rps) {
  const model::MemoryTraffic t =
      model::traffic_per_rpc(s.memory, y.buffers, model::paper_buffer_bytes(s.memory, y.buffers), s.rpc);
  NebulaPoint p;
  p.memory = model::at_load(s.memory, t, s.rpc, rps);
  if (p.memory.saturated) return p;
  model::VirtualHostConfig c;
  c.cores = s.memory.cores;
  c.context_switch_ns = 0;  // pure queueing, as the paper's model
  c.core_select = y.policy;
  c.jbsq_n = y.jbsq_n;
  model::ServiceTime st;
  st.kind = s.service_kind;
  st.mean_ns = p.memory.service_ns;
  st.queued_delta_ns = s.queued_delta_ns;
  st.after_ns = s.after_ns;
  c.classes = {{"rpc", 0, 1, st, {}}};
  c.load_rps = rps;
  c.requests = o.requests;
  c.seed = o.seed;
  std::vector<model::ClassResult> r = model::run_virtual_host(c).classes;
  p.p99_ns = r[0].quantile_ns(0.99);
  return p;
}

double nebula_max_rps(const FigureOptions& o, const NebulaServer& s, const NebulaSystem& y,
                      double slo_ns) {
  // With a prefetch's saving every RPC may be faster than its unloaded time.
  const double fastest_ns = s.rpc.service_ns + std::min(0.0, s.queued_delta_ns);
  const double capacity = s.memory.cores * 1e9 / fastest_ns;
  double lo = 0.05 * capacity, hi = capacity;
  for (int i = 0; i < 10; ++i) {
    const double mid = (lo + hi) / 2;
    (nebula_at(o, s, y, mid).p99_ns <= slo_ns ? lo : hi) = mid;
  }
  return lo;
}

}  // namespace nanopu::figures
