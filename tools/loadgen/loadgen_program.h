// nanopu-loadgen's program (nanopu/program.h), for its main and for
// nanopu-sim (the program `loadgen`): --service and its flags, the load
// flags, --size, --expect.
#pragma once

#include <memory>

#include "absl/status/statusor.h"
#include "nanopu/program.h"
#include "nanopu/config.h"

namespace nanopu::apps {

// `history`: where the kv, chain and Raft clients record their requests
// (nullptr: nowhere); it outlives the program.
[[nodiscard]] absl::StatusOr<std::unique_ptr<Program>> make_loadgen_program(const Config& config,
                                                                            History* history = nullptr);

}  // namespace nanopu::apps
