// nanopu's own programs for its simulations (nanopu-sim, nanopu-dst,
// nanopu-figures): `server` (nanopu-server's, apps/server) and `loadgen`
// (nanopu-loadgen's, tools/loadgen), each with the flags of its own binary.
#pragma once

#include "nanopu/program.h"

namespace nanopu::sim {

[[nodiscard]] const Programs& builtin_programs();

}  // namespace nanopu::sim
