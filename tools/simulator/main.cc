// nanopu-sim: every host of a topology in one process, on one modelled
// clock (docs/design.md §11). Each host is the real runtime — its NIC
// core's code and its threads' fibers under the HTS stand-in — running its
// real program (nanopu-server's service, nanopu-loadgen's client) with the
// flags the topology gives it; links and the switch are modelled. No wall
// clock decides anything: one seed and one binary give one run, event for
// event, and the trace hash printed at the end says so. The simulation is
// the library's (nanopu/program_main.h, runtime/simulation); this binary offers
// nanopu's own two programs to it.
#include "nanopu/program_main.h"
#include "tools/simulator/builtin_programs.h"

int main(int argc, char** argv) { return nanopu::sim::sim_main(argc, argv, nanopu::sim::builtin_programs()); }
