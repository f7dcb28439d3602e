// A service binary's whole main (docs/services.md, "Your service on the
// modelled clock"): the programs it declares (nanopu/program.h), each run
// live, or all of a topology's hosts on one modelled clock, or seed after
// seed of faults with invariants checked.
//
//   my-service PROGRAM [flags]        one program on a live host: nanopu's
//                                     host flags (--vdev, --lcores, --backend,
//                                     --ip, ...) and the program's own
//   my-service sim TOPOLOGY [flags]   every host of the topology file (each
//                                     line names a program and its flags) on
//                                     one modelled clock; nanopu-sim's flags
//                                     (--sim_seed, --cut, --crash, --history)
//   my-service dst TOPOLOGY [flags]   seeded fault campaign (--seeds,
//                                     --first_seed, --fault_*): the run ends,
//                                     no client sees a wrong reply, and
//                                     `invariants` hold; a failing seed
//                                     prints the command that replays it
//   my-service help                   the programs and commands
//
// Link nanopu::sim (find_package(nanopu)) or pkg-config nanopu-sim.
#pragma once

#include <vector>

#include "nanopu/program.h"
#include "nanopu/sim.h"

namespace nanopu {

// Returns the exit status: the program's (live), 0/1/3 a simulation's (its
// clients': 3 some not answered right; 1 it did not end), 0/1 a campaign's
// (1: a seed failed), 2 a bad command line or topology (one line naming it).
int program_main(int argc, char** argv, const Programs& programs,
                 const std::vector<sim::NamedInvariant>& invariants = {});

namespace sim {
// `sim` and `dst` alone (argv[1] the topology): nanopu-sim's main and a
// campaign's, for a binary with a main of its own.
int sim_main(int argc, char** argv, const Programs& programs);
int dst_main(int argc, char** argv, const Programs& programs, const std::vector<NamedInvariant>& invariants);
}  // namespace sim

}  // namespace nanopu
