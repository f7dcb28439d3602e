// nanopu's own programs for its simulations (nanopu-sim, nanopu-dst,
// nanopu-figures): `server` (nanopu-server's, apps/server) and `loadgen`
// (nanopu-loadgen's, tools/loadgen), each with the flags of its own binary,
// and `workload` (the Homa paper's all-to-all workloads, workload_program.h).
#pragma once

#include "nanopu/program.h"

namespace nanopu::sim {

[[nodiscard]] const Programs& builtin_programs();

}  // namespace nanopu::sim
