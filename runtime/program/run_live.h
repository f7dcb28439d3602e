// One program on a live host (nanopu/program.h): its flags, parsed already,
// into its Config and ProgramArgs; the host started on its port; the
// program's threads; the run until it is done (a client), stopped or
// signalled; its report. program_main's `my-service PROGRAM ...` and
// client_main (nanopu/loadgen_main.h) are this.
#pragma once

#include "nanopu/program.h"

namespace nanopu::program {

// The exit status: the program's report's; 2 a bad flag (one line naming
// it, prefixed with the program's name), 1 the host could not start.
// With --check_flags, 0 once every flag is checked, nothing started.
[[nodiscard]] int run_live(const ProgramSpec& spec);

}  // namespace nanopu::program
