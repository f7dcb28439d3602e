#include "apps/loadgen/modelled_latency.h"

#include <algorithm>

#include "absl/strings/str_format.h"
#include "apps/loopback/loopback.h"
#include "lib/timing/timing_model.h"
#include "lib/timing/virtual_host.h"

namespace nanopu::apps {

ModelledLatency model_latency(const LoadGenOptions& o, uint64_t samples, const timing::TimingParams& p) {
  const timing::TimingModel m(p);
  const double service_ns = static_cast<double>(o.service_cycles) / kServiceCyclesPerNs;
  const double words = static_cast<double>((o.msg_bytes + 7) / 8);
  // The server core's time per request: the echo's own cycles (already in
  // the loopback path) plus the declared service time.
  const double core_ns = m.cycles_ns(p.app_fixed_cycles + words * p.app_cycles_per_word) + service_ns;
  const double unloaded = m.rpc_round_trip_ns(o.msg_bytes, o.msg_bytes, service_ns);
  ModelledLatency r;
  if (o.rate <= 0) {
    const double rtt = std::max(unloaded, o.outstanding * core_ns);
    r.min_ns = r.mean_ns = r.p50_ns = r.p90_ns = r.p99_ns = r.p999_ns = r.max_ns = rtt;
    r.how = absl::StrFormat("closed loop, %u outstanding, one server core, parameter set %s",
                            o.outstanding, p.name);
    return r;
  }
  timing::VirtualHostConfig c;
  timing::ServiceTime s;
  s.mean_ns = core_ns;
  c.classes = {{"requests", 0, 1, s, {}}};
  c.context_switch_ns = m.context_switch_ns();
  c.fixed_response_ns = unloaded - core_ns;
  c.load_rps = o.rate;
  c.requests = std::clamp<uint64_t>(samples, 1000, 200000);
  c.seed = o.seed;
  timing::VirtualHostResult v = timing::run_virtual_host(c);
  timing::ClassResult& k = v.classes[0];
  r.min_ns = k.quantile_ns(0);
  r.mean_ns = k.mean_ns();
  r.p50_ns = k.quantile_ns(0.5);
  r.p90_ns = k.quantile_ns(0.9);
  r.p99_ns = k.quantile_ns(0.99);
  r.p999_ns = k.quantile_ns(0.999);
  r.max_ns = k.quantile_ns(1);
  r.how = absl::StrFormat("virtual time, Poisson %.0f req/s, one server core, parameter set %s",
                          o.rate, p.name);
  return r;
}

}  // namespace nanopu::apps
