// spin-handlers: PsPIN's six use cases as sPIN handlers on nanopu's NIC, and
// a client that checks them, one binary.
//   spin-handlers spin-server --vdev='net_memif0,role=server,socket=/tmp/spin.sock' --lcores=1 --max_threads_per_core=6
//   spin-handlers spin-client --vdev='net_memif0,role=client,socket=/tmp/spin.sock' --lcores=0
//   spin-handlers sim spin.topo --sim_seed=7           both hosts on one modelled clock
#include <cstdio>

#include "nanopu/program_main.h"
#include "programs.h"

int main(int argc, char** argv) {
  nanopu::Programs programs;
  for (nanopu::ProgramSpec p : {spin_server_program(), spin_client_program()})
    if (absl::Status s = programs.add(std::move(p)); !s.ok()) {
      std::fprintf(stderr, "spin-handlers: %s\n", std::string(s.message()).c_str());
      return 1;
    }
  return nanopu::program_main(argc, argv, programs);
}
