// The hosts of a topology for nanopu-sim: each host's program (nanopu-server
// or nanopu-loadgen, apps/server/host_program.h) made from its flags as its
// own binary would read them, in a flag scope of its own, then run as a
// Runtime on a modelled link (docs/design.md §11).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "apps/server/host_program.h"
#include "model/sim/sim_link.h"
#include "nanopu/config.h"
#include "nanopu/runtime.h"
#include "tools/sim/topology.h"

namespace nanopu::sim {

struct SimHost {
  const TopologyHost* topo = nullptr;
  size_t index = 0;                  // in the topology
  model::SimPort* io = nullptr;      // its end of its link, once made
  size_t loop_group = SIZE_MAX;      // its cores' group in the SimLoop (SimLoop::add_group)
  bool down = false;                 // crashed (SimCrash), not yet restarted
  Config config;
  std::unique_ptr<apps::HostProgram> program;
  std::unique_ptr<Runtime> runtime;  // once its port exists
  uint64_t start_at_ticks = 0;       // when it boots (modelled)
};

// Each host's program from its topology flags, with `seed` for a load
// generator that names none (--seed: its arrivals). Errors are
// "PATH:LINE: host NAME: what", as deploy/netns/run.sh reports them: a flag
// its program does not have, a bad value, or one nanopu-sim does not run in
// virtual time.
[[nodiscard]] absl::StatusOr<std::vector<SimHost>> make_sim_hosts(const Topology& t, uint64_t seed);
// Host `index` alone, as make_sim_hosts makes it (a crashed host restarted).
[[nodiscard]] absl::StatusOr<SimHost> make_sim_host(const Topology& t, size_t index, uint64_t seed);

}  // namespace nanopu::sim
