// A topology's switches as the simulation's (model/network/sim_switch.h): one
// switch, or a fabric of several (leaf-spine, a fat tree). Each port sits
// on a link of its own rate and latency — its link line's options, else
// its switch's --switch_gbps and the run's --wire_latency_ns — and a
// switch-to-switch link is one SimLink whose two ends are ports of the two
// switches. Every switch routes every host over the shortest paths to the
// switch the host hangs off, in hops; several equally short ones are an
// ECMP set (by flow hash, or by packet with --spray), as a datacenter
// fabric's routing protocol leaves them (the Homa paper's evaluation
// fabric, SIGCOMM'18 §5.2, and NDP's, SIGCOMM'17 §3.1, spray packets over
// equal paths).
#pragma once

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "model/network/sim_switch.h"
#include "runtime/simulation/simulation.h"
#include "runtime/simulation/topology.h"

namespace nanopu::sim {

[[nodiscard]] absl::StatusOr<std::vector<std::unique_ptr<model::SimSwitch>>> make_fabric(const Topology& t,
                                                                                        const SimParams& p);

}  // namespace nanopu::sim
