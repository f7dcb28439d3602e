// The ingress pipeline as a program (Config::pipeline_program; the NIC
// core's side is nic/pipeline/swx_program.h): read from its file, one
// instance per NIC core, each given the entries file's lines ("TABLE
// ENTRY", as rte_swx_ctl reads an entry). Errors name the file and line.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "nanopu/config.h"
#include "nic/pipeline/swx_program.h"

namespace nanopu {

// Output ports of a host's program: 0 the fast path, 1 the OS, 2 dropped.
inline constexpr uint32_t kPipelinePorts = 3;

[[nodiscard]] absl::StatusOr<std::vector<std::unique_ptr<SwxProgram>>> load_pipeline_programs(
    const Config& c, uint32_t nic_cores, uint32_t instance);

}  // namespace nanopu
