// The flags every nanopu program that serves or sends messages reads the
// same way (nanopu-server, nanopu-loadgen and the clients of
// nanopu/loadgen_main.h): defined once, so one binary can hold several
// programs' hosts (nanopu-sim runs a whole topology in one process). A
// program whose default differs sets it before parsing (absl::SetFlag), as
// clients do for --ip; --help then shows it as "currently". Defined in
// nanopu::flags (runtime/flags/program_flags.cc).
#pragma once

#include <cstdint>
#include <string>

#include "absl/flags/declare.h"

ABSL_DECLARE_FLAG(bool, check_flags);
ABSL_DECLARE_FLAG(uint32_t, context);
ABSL_DECLARE_FLAG(bool, stats);
ABSL_DECLARE_FLAG(std::string, app_mode);
ABSL_DECLARE_FLAG(uint64_t, seed);
ABSL_DECLARE_FLAG(std::string, history);
ABSL_DECLARE_FLAG(std::string, state_dir);
