// nanopu's command-line flags (target nanopu::flags, linked only by programs
// that want them: the library proper defines no flag). Every Config field has
// a flag of the same meaning; --help lists them with their defaults.
//
//   int main(int argc, char** argv) {
//     nanopu::init_flags_usage("what my-service does");
//     nanopu::parse_flags(argc, argv);
//     absl::StatusOr<nanopu::Config> config = nanopu::Config::from_flags();
//     ...
#pragma once

#include <initializer_list>
#include <vector>

#include "nanopu/config.h"

namespace nanopu {

// Installs nanopu's --help behaviour under the given usage message: --help
// lists the program's own flags — every flag but the host runtime's (the
// 60-odd every nanopu host takes: --lcores, --vdev, --ip, --backend, ...),
// named in a last line — and --helpfull all of them. --help already
// starts with the program's name: a message that starts with it too
// ("my-service: ...") has it taken off, so it is not said twice.
void init_flags_usage(const char* usage);
// The same, a program whose own flags are those of the source files whose
// paths contain one of `own` (e.g. {"tools/lincheck/"}): a tool that links
// more than it is about (nanopu-dst links every service's program) lists
// its own flags alone under --help.
void init_flags_usage(const char* usage, std::initializer_list<const char*> own);

// absl::ParseCommandLine (its positional arguments back), except that a
// flag the program does not have, or a value its flag cannot take, exits
// with status 2 (usage) and one line naming it, where abseil exits 1 —
// which nanopu's tools keep for a failed run (a failing seed, a history
// that is not linearizable, a client not answered).
std::vector<char*> parse_flags(int argc, char** argv);

}  // namespace nanopu
