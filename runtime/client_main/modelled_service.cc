#include "runtime/client_main/modelled_service.h"

#include <algorithm>

#include "absl/strings/str_format.h"
#include "nanopu/seeded_draw.h"

namespace nanopu::loadgen {

double core_ns(const model::TimingModel& m, size_t in_bytes, size_t out_bytes, double work_cycles) {
  const model::TimingParams& p = m.params();
  return m.cycles_ns(p.app_fixed_cycles + words_of(std::max(in_bytes, out_bytes)) * p.app_cycles_per_word +
                     work_cycles);
}

// One request/reply round trip between two nanoPUs with `work_cycles` on
// the server: rpc_round_trip_ns counts the request's loopback words in its
// wire-to-wire part, so the service time passed is the rest of the core.
ModelledKind rpc_kind(const model::TimingModel& m, double share, size_t in_bytes, size_t out_bytes,
                      double work_cycles) {
  const model::TimingParams& p = m.params();
  const double core = core_ns(m, in_bytes, out_bytes, work_cycles);
  const double loopback = m.cycles_ns(p.app_fixed_cycles + words_of(in_bytes) * p.app_cycles_per_word);
  return {share, core, m.rpc_round_trip_ns(in_bytes, out_bytes, core - loopback)};
}

void fill_quantiles(model::ClassResult& k, ModelledLatency* r) {
  r->min_ns = k.quantile_ns(0);
  r->mean_ns = k.mean_ns();
  r->p50_ns = k.quantile_ns(0.5);
  r->p90_ns = k.quantile_ns(0.9);
  r->p99_ns = k.quantile_ns(0.99);
  r->p999_ns = k.quantile_ns(0.999);
  r->max_ns = k.quantile_ns(1);
}

model::VirtualHostConfig server_host_config(const model::TimingModel& m, uint32_t cores, bool jbsq,
                                             const model::ServiceTime& st) {
  model::VirtualHostConfig c;
  c.cores = cores;
  if (jbsq) {
    c.classes = {{"requests", 0, 1, st, {}}};
  } else {
    for (uint32_t i = 0; i < cores; ++i)
      c.classes.push_back({"partition" + std::to_string(i), 0, 1.0 / cores, st, {i}});
  }
  c.core_select = CoreSelectPolicy::kJbsq;
  c.context_switch_ns = m.context_switch_ns();
  return c;
}

ModelledLatency model_service(const ModelledService& s, const loadgen::Options& o, uint64_t samples,
                              const model::TimingParams& p) {
  const model::TimingModel m(p);
  ModelledLatency r;
  if (s.kinds.empty() || s.cores == 0) return r;
  double total = 0, mean_core = 0;
  for (const ModelledKind& k : s.kinds) total += k.share;
  for (const ModelledKind& k : s.kinds) mean_core += k.share / total * k.core_ns;
  // Kind of the i-th response: drawn by share, the same sequence for a seed.
  SeededDraw rng(o.seed ^ 0x6b696e6473ULL);
  auto draw = [&]() -> const ModelledKind& {
    double x = rng.between(0, total);
    for (const ModelledKind& k : s.kinds)
      if ((x -= k.share) < 0) return k;
    return s.kinds.back();
  };
  model::ClassResult all;
  if (o.rate <= 0) {
    const double floor_ns = o.outstanding * mean_core / s.cores;
    for (int i = 0; i < 1000; ++i)
      all.response_ps.push_back(static_cast<uint64_t>(std::max(draw().path_ns, floor_ns) * 1000));
    fill_quantiles(all, &r);
    r.how = absl::StrFormat("%s; closed loop, %u outstanding, parameter set %s", s.how, o.outstanding,
                            p.name);
    return r;
  }
  model::ServiceTime st;
  st.mean_ns = mean_core;
  model::VirtualHostConfig c = server_host_config(m, s.cores, s.jbsq, st);
  c.load_rps = o.rate;
  c.requests = std::clamp<uint64_t>(samples, 1000, 200000);
  c.seed = o.seed;
  model::VirtualHostResult v = model::run_virtual_host(c);
  // Queued on the core at the mean core time; the rest of each round trip
  // (the path outside that core) added per request by its kind.
  for (const model::ClassResult& k : v.classes)
    for (uint64_t ps : k.response_ps) {
      const ModelledKind& kind = draw();
      const double outside_ns = std::max(0.0, kind.path_ns - mean_core);
      all.response_ps.push_back(ps + static_cast<uint64_t>(outside_ns * 1000));
    }
  fill_quantiles(all, &r);
  r.how = absl::StrFormat("%s; virtual time, Poisson %.0f req/s queued on %u core(s)%s, parameter set %s",
                          s.how, o.rate, s.cores, s.cores > 1 ? (s.jbsq ? " by JBSQ" : " by key") : "",
                          p.name);
  return r;
}

}  // namespace nanopu::loadgen
