// nanopu/loadgen_main.h: a client program's main, from flags to exit status:
// its program (client_program.cc) run on one live host.
#include <string>

#include "nanopu/flags.h"
#include "nanopu/loadgen_main.h"
#include "runtime/client_main/load_flags.h"
#include "runtime/program/run_live.h"

namespace nanopu::loadgen {

int client_main(int argc, char** argv, const ClientProgram& p) {
  set_client_defaults();
  const std::string usage =
      (p.usage.empty() ? "drive a nanopu service with load" : p.usage) +
      "\nLoad: closed loop (--outstanding) or open loop (--rate, Poisson), --count or --duration; "
      "--json for tools/plot_latency.py; --history for every call as a Jepsen history (when the "
      "client records).\n"
      "Exit status: 0 every request answered and right, 3 some lost, given up or wrong, 1/2 errors.";
  init_flags_usage(usage.c_str());
  nanopu::parse_flags(argc, argv);
  return program::run_live(client_program(p));
}

}  // namespace nanopu::loadgen
