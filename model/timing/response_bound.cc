#include "model/timing/response_bound.h"

#include <algorithm>
#include <string>
#include <vector>

#include "model/timing/picoseconds.h"
#include "model/queueing/virtual_host.h"

namespace nanopu::model {

double worst_case_response_ns(const TimingModel& m, const WorstCaseSearch& s) {
  const double t_n = 2 * m.params().link_latency_ns + m.loopback_ns(8);
  VirtualHostConfig c;
  c.cores = 1;
  for (unsigned i = 0; i < s.k; ++i) c.classes.push_back({"thread" + std::to_string(i), 0, 1, {}, {0}});
  c.t0_ns = s.t0_ns;
  c.bounded = s.bounded;
  c.demotion = s.demotion;
  c.context_switch_ns = m.context_switch_ns();
  c.fixed_response_ns = t_n;
  const double other_ns = s.others_misbehave ? s.misbehave_ns : s.service_ns;
  // Long enough for anything queued to drain between two events.
  const double gap_ns = 4 * (s.k + 1) * std::max(s.misbehave_ns, s.t0_ns);
  double worst = 0;
  // Which thread's context is loaded when the others' messages arrive: the
  // measured one's (it served last) or another's.
  for (unsigned loaded = 0; loaded < std::min(s.k, 2u); ++loaded) {
    for (unsigned j = 0; j < s.offsets; ++j) {
      // 1 ps after the others at the least: at the same instant the
      // measured thread could win the tie.
      const double offset_ns = 0.001 + (s.k + 1) * s.t0_ns * j / s.offsets;
      // In arrival order, as the trace needs: a warm-up message per thread,
      // `loaded` (0: the measured thread, 1: the last of the others) last;
      // the others' messages together; the measured thread's, last.
      std::vector<TracedRequest> trace;
      for (unsigned n = 0; n < s.k; ++n) {
        const unsigned i = loaded == 0 ? (n + 1) % s.k : n;
        trace.push_back({ps(n * gap_ns), i, ps(i == 0 ? s.service_ns : other_ns)});
      }
      const double at = s.k * gap_ns;
      for (unsigned i = 1; i < s.k; ++i) trace.push_back({ps(at), i, ps(other_ns)});
      trace.push_back({ps(at + offset_ns), 0, ps(s.service_ns)});
      c.trace = std::move(trace);
      const VirtualHostResult r = run_virtual_host(c);
      worst = std::max(worst, static_cast<double>(r.trace_response_ps.back()) / 1000);
    }
  }
  return worst;
}

}  // namespace nanopu::model
