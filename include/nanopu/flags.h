// nanopu's command-line flags (target nanopu::flags, linked only by programs
// that want them: the library proper defines no flag). Every Config field has
// a flag of the same meaning; --help lists them with their defaults.
//
//   int main(int argc, char** argv) {
//     nanopu::init_flags_usage("what my-service does");
//     absl::ParseCommandLine(argc, argv);
//     absl::StatusOr<nanopu::Config> config = nanopu::Config::from_flags();
//     ...
#pragma once

#include "nanopu/config.h"

namespace nanopu {

// Installs nanopu's --help behaviour: list every flag of this program (not
// Abseil's internal ones) under the given usage message. --help already
// starts with the program's name: a message that starts with it too
// ("my-service: ...") has it taken off, so it is not said twice.
void init_flags_usage(const char* usage);

}  // namespace nanopu
