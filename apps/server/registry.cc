#include "apps/server/server_app.h"

namespace nanopu::apps {

std::unique_ptr<ServerApp> make_server_app(std::string_view name) {
  using Maker = std::unique_ptr<ServerApp> (*)(std::string_view);
  for (Maker make : {make_loopback_server_app, make_kv_server_app, make_chain_server_app,
                     make_rdma_server_app, make_raft_server_app, make_dot_server_app,
                     make_compute_server_app, make_othello_server_app})
    if (std::unique_ptr<ServerApp> app = make(name)) return app;
  return nullptr;
}

std::string server_app_names() {
  return "echo, increment, service, service-tester, loopback-throughput, lnic-increment, kv, kv-naive, "
         "chain, rdma, raft, dot, dot-naive, setint, hdsearch, nbody, classifier, int (each of these "
         "five also as NAME-traditional) or othello";
}

}  // namespace nanopu::apps
