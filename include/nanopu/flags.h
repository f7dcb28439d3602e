// nanopu's command-line flags (target nanopu::flags, linked only by programs
// that want them: the library proper defines no flag). Every Config field has
// a flag of the same meaning; --help lists them with their defaults.
//
//   int main(int argc, char** argv) {
//     nanopu::init_flags_usage("my-service: what it does");
//     absl::ParseCommandLine(argc, argv);
//     absl::StatusOr<nanopu::Config> config = nanopu::Config::from_flags();
//     ...
#pragma once

#include "nanopu/config.h"

namespace nanopu {

// Installs nanopu's --help behaviour: list every flag of this program (not
// Abseil's internal ones) under the given one-line usage message.
void init_flags_usage(const char* usage);

}  // namespace nanopu
