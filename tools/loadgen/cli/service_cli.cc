#include "tools/loadgen/cli/service_cli.h"

namespace nanopu::apps {

std::unique_ptr<ServiceCli> make_echo_cli();
std::unique_ptr<ServiceCli> make_kv_cli();
std::unique_ptr<ServiceCli> make_chain_cli();
std::unique_ptr<ServiceCli> make_rdma_cli();
std::unique_ptr<ServiceCli> make_raft_cli();
std::unique_ptr<ServiceCli> make_dot_cli();
std::unique_ptr<ServiceCli> make_compute_cli(std::string_view name);
std::unique_ptr<ServiceCli> make_tester_cli(bool service);
std::unique_ptr<ServiceCli> make_othello_cli();

std::unique_ptr<ServiceCli> make_service_cli(std::string_view name) {
  if (name == "echo") return make_echo_cli();
  if (name == "kv") return make_kv_cli();
  if (name == "chain") return make_chain_cli();
  if (name == "rdma") return make_rdma_cli();
  if (name == "raft") return make_raft_cli();
  if (name == "dot") return make_dot_cli();
  if (name == "tester-throughput") return make_tester_cli(false);
  if (name == "tester-service") return make_tester_cli(true);
  if (name == "othello") return make_othello_cli();
  if (name == "setint" || name == "hdsearch" || name == "nbody" || name == "classifier" || name == "int")
    return make_compute_cli(name);
  return nullptr;
}

}  // namespace nanopu::apps
