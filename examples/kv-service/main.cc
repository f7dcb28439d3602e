// kv-service: the key-value server and its checked client, one binary.
//   kv-service kv-server --vdev='net_memif0,role=server,socket=/tmp/kv.sock' --lcores=1
//   kv-service kv-client --vdev='net_memif0,role=client,socket=/tmp/kv.sock' --lcores=0 --count=100000
//   kv-service sim kv.topo --sim_seed=7          every host on one modelled clock
//   kv-service dst kv.topo --seeds=100           under seeded faults, invariants checked
#include <cstdio>

#include "kv_programs.h"
#include "nanopu/program_main.h"

int main(int argc, char** argv) {
  nanopu::Programs programs;
  for (nanopu::ProgramSpec p : {kv_server_program(), kv_client_program()})
    if (absl::Status s = programs.add(std::move(p)); !s.ok()) {
      std::fprintf(stderr, "kv-service: %s\n", std::string(s.message()).c_str());
      return 1;
    }
  return nanopu::program_main(argc, argv, programs);
}
