// What the simulation's public calls (nanopu/sim.h) share: the EAL for a
// run, the public options as the Simulation's, and a run of a topology
// already read (a fault campaign changes its hosts' lines first).
#pragma once

#include <cstdio>
#include <functional>

#include "absl/status/statusor.h"
#include "nanopu/sim.h"
#include "runtime/simulation/simulation.h"
#include "runtime/simulation/topology.h"

namespace nanopu::sim {

// The EAL of a process that runs `hosts` hosts (once per process; later
// calls are no-ops).
[[nodiscard]] absl::Status init_sim_eal(size_t hosts);
[[nodiscard]] absl::StatusOr<SimParams> sim_params(const Options& o, const Programs& programs);
[[nodiscard]] Report public_report(const SimReport& r);
// peers: this process is one of several MPI ranks (runtime/simulation/mpi_peers.h).
[[nodiscard]] absl::StatusOr<Report> run_topology(const Topology& t, const Programs& programs, const Options& o,
                                                  FILE* out, const std::function<void(const Report&)>& inspect,
                                                  model::SimPeers* peers = nullptr);

}  // namespace nanopu::sim
