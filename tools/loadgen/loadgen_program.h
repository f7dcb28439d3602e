// nanopu-loadgen's program (apps/server/host_program.h), for its main and
// for nanopu-sim: --service and its flags, the load flags, --size, --expect.
#pragma once

#include <memory>

#include "absl/status/statusor.h"
#include "apps/server/host_program.h"
#include "nanopu/config.h"

namespace nanopu::apps {

[[nodiscard]] absl::StatusOr<std::unique_ptr<HostProgram>> make_loadgen_program(const Config& config);

}  // namespace nanopu::apps
