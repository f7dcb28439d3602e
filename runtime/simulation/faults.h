// Fault schedules drawn from a seed for any topology, and the campaign that
// runs seed after seed with invariants (nanopu/sim.h). nanopu-dst's own
// clusters (tools/simulator/dst.h) draw their wires' faults the same way.
#pragma once

#include <cstdint>
#include <string>

#include "nanopu/seeded_draw.h"
#include "nanopu/sim.h"
#include "runtime/simulation/streams.h"
#include "runtime/simulation/topology.h"

namespace nanopu::sim {

// One host's wire faults (its --faults flag): a third of the draws none
// (""), else a few percent of drops, duplicates, reordering and trimming.
[[nodiscard]] std::string draw_wire_faults(SeededDraw& d, uint64_t seed);

// The schedule's host flags added to a copy of the topology.
[[nodiscard]] Topology with_faults(const Topology& t, const FaultSchedule& f);

// The invariants every campaign checks: the run ended, and no client saw
// a wrong or duplicated reply. "" or what broke.
[[nodiscard]] std::string builtin_invariants(const Report& r);

}  // namespace nanopu::sim
