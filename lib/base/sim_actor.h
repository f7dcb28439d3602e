// The simulated host an OS thread runs at the moment (0: none, or live).
// A simulation runs every host in one process, several on a thread; what
// is kept per host — buggify()'s draws (nanopu/buggify.h), the durable
// files a power loss reaches (nanopu/durable_file.h) — is kept by actor, so
// a run is the same whichever thread ran each host. Set by the simulation
// before it polls a host's cores, makes its program or restarts it.
#pragma once

#include <cstdint>

namespace nanopu {

void set_sim_actor(uint64_t actor);
[[nodiscard]] uint64_t sim_actor();

}  // namespace nanopu
