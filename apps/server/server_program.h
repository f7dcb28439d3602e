// nanopu-server's program (nanopu/program.h): --app and its flags,
// --context, --threads, ... read when it is made. nanopu-server's main
// parses its flags and runs one; nanopu-sim (tools/simulator) offers it as the
// program `server` of a topology's host lines.
#pragma once

#include <memory>

#include "absl/status/statusor.h"
#include "nanopu/config.h"
#include "nanopu/program.h"

namespace nanopu::apps {

// The flags' error (one line naming the bad flag, as the program prints it
// before exiting 2) comes back as InvalidArgument.
[[nodiscard]] absl::StatusOr<std::unique_ptr<Program>> make_server_program(const Config& config);

}  // namespace nanopu::apps
