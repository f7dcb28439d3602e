// The bound on a well-behaved thread's response time (nanoPU (OSDI'21)
// §5.2.2: t_n + k·t0 + (k−1)·t_c for k priority-0 threads on a core, each
// with at most one message at a time) searched for by simulation, so the
// formula is checked against the scheduler rather than against the paper's
// own arithmetic: the runtime's HtsPolicy in virtual time
// (virtual_host.h), the other threads' messages arriving together and the
// measured thread's at every offset of a grid, with the measured thread's
// context loaded beforehand or another's.
//
// What it finds: the formula holds when the first thread served is the one
// whose context is loaded; otherwise every one of the k messages pays a
// switch, so the worst case is t_n + k·(t0 + t_c)
// (TimingModel::strict_response_bound_ns): one t_c (50 ns) above the
// paper's figure (docs/design.md §5).
#pragma once

#include "nanopu/policies.h"
#include "model/timing/timing_model.h"

namespace nanopu::model {

struct WorstCaseSearch {
  unsigned k = 2;                // priority-0 threads on the core, the measured one included
  double t0_ns = 1000;
  double service_ns = 999;       // every well-behaved message (below t0)
  bool others_misbehave = false; // the other threads take misbehave_ns instead
  double misbehave_ns = 5000;
  bool bounded = true;           // t0 demotion on
  DemotionMode demotion = DemotionMode::kPermanent;
  unsigned offsets = 400;        // arrival offsets tried, over (k + 1)·t0
};

// The largest response time of the measured thread found, arrival at the
// NIC to reply out, t_n (two links and the 8-byte fast path) included.
[[nodiscard]] double worst_case_response_ns(const TimingModel& m, const WorstCaseSearch& s);

}  // namespace nanopu::model
