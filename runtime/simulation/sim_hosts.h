// The hosts of a topology on the modelled clock: each host's program (one
// of the binary's, nanopu/program.h) made from its flags as its own binary
// would read them, in a flag scope of its own, then run as a Runtime on a
// modelled link (docs/design.md §11).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "model/network/sim_link.h"
#include "nanopu/config.h"
#include "nanopu/history.h"
#include "nanopu/program.h"
#include "nanopu/stats.h"
#include "nanopu/runtime.h"
#include "runtime/simulation/topology.h"

namespace nanopu::sim {

struct SimHost {
  const TopologyHost* topo = nullptr;
  size_t index = 0;                  // in the topology
  model::SimPort* io = nullptr;      // its end of its link, once made
  size_t loop_node = SIZE_MAX;       // its node in the SimLoop (SimLoop::add_node)
  bool down = false;                 // crashed (SimCrash), not yet restarted
  bool client = false;               // its program is a client (ProgramSpec::client)
  Config config;
  std::unique_ptr<Program> program;
  std::unique_ptr<Runtime> runtime;  // once its port exists
  uint64_t start_at_ticks = 0;       // when it boots (modelled)
  std::string state_dir;             // ProgramArgs::state_dir: kept across its restarts
  NicCounters crashed_nic;           // its crashed runs' NIC counts (the report adds them)
};

// What every host of a run is made with.
struct SimHostContext {
  const Programs* programs = nullptr;
  History* history = nullptr;   // the run's, or none
  std::string state_root;       // a directory the run owns: each host's state_dir is below it
};

// Each host's program from its topology flags, with `seed` for a host that
// names none (--seed: a client's arrivals). Errors are "PATH:LINE: host
// NAME: what", as deploy/netns/run.sh reports them: a program the binary
// lacks, a flag its program does not have, a bad value, or one that has no
// meaning in virtual time.
[[nodiscard]] absl::StatusOr<std::vector<SimHost>> make_sim_hosts(const Topology& t, const SimHostContext& ctx,
                                                                   uint64_t seed);
// Host `index` alone, as make_sim_hosts makes it (a crashed host restarted:
// its program made again, its state_dir kept).
[[nodiscard]] absl::StatusOr<SimHost> make_sim_host(const Topology& t, const SimHostContext& ctx, size_t index,
                                                    uint64_t seed);

}  // namespace nanopu::sim
