// A figure's run of whole hosts — the real runtime running nanopu-server's
// and nanopu-loadgen's programs — on nanopu-sim's modelled clock
// (tools/simulator, docs/design.md §11): the multi-host services' figures and
// the real-thread versions of the queueing figures use it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bench/figures/figures.h"
#include "nanopu/loadgen.h"

namespace nanopu::figures {

// The paper's network (nanoPU OSDI'21 §5: 200 Gb/s links of 43 ns; the
// switch's port-to-port latency per figure).
struct Net {
  double switch_latency_ns = 0;
  double link_latency_ns = 43.75;
};

struct SimRun {
  bool ok = false;
  std::string error;
  loadgen::Result result;  // the first load generator's; modelled ns
  std::vector<loadgen::Result> clients;  // every load generator's, in topology order
  uint64_t trace_hash = 0;
  double wall_s = 0;
};

enum class Charge { kWiresOnly, kCounted, kMeasured };

// The figures' topologies (nanopu-sim's language, docs/running.md): a
// server host and a client host on one link (`server`, `client`: each
// program's flags); or a switch, `n` servers running `server` and a client
// running `client`, the servers at server_ip(0..n), the client at 10.0.0.2.
[[nodiscard]] std::string pair_topology(const std::string& server, const std::string& client);
[[nodiscard]] std::string star_topology(size_t n, const std::string& server, const std::string& client);
// "10.0.0.1", then .3, .4, ... (the client is .2, as in deploy/netns/examples).
[[nodiscard]] std::string server_ip(size_t i);
// "10.0.0.1:5,10.0.0.3:5,..." for n servers.
[[nodiscard]] std::string members(size_t n, int context);

// A load generator's flags for a closed loop of `count` requests, one at a
// time (low load), with a leading space.
[[nodiscard]] std::string closed_loop(uint64_t count);

// The papers' multi-host services on their topologies, a client's closed
// loop of `count` requests one at a time (the raft, chain and rdma figures,
// and their Table 1 rows):
struct ServiceTopology {
  std::string text;
  Net net;
};
// Raft (nanoPU OSDI'21 §5.3): `servers` and a client on a switch of 300 ns
// port to port, 43 ns links; three-way replicated PUTs.
[[nodiscard]] ServiceTopology raft_topology(size_t servers, uint64_t count);
// Chain replication (the tail-latency version §4.3): three replicas and a
// client on a switch of zero latency; WRITEs of 16 B keys and 64 B values.
[[nodiscard]] ServiceTopology chain_topology(uint64_t count);
// One-sided RDMA (nanoPU OSDI'21 Table 2): "the one-way latency through the
// switch and links is 300 ns", so the switch's port to port is 300 - 2 x
// 43.75 ns (derived); `mode` is nanopu-loadgen's --rdma_mode.
[[nodiscard]] ServiceTopology rdma_topology(const std::string& mode, uint64_t count);

// One run of `text` (a topology file's) with o.seed and
// o.params: the wires' and the switch's time only, counted time, or counted
// time and each thread's own code as long as it took on this machine (not
// replayable). Not ok when a reply was lost or wrong, or the run did not end.
// A run whose modelled time passes `modelled_limit_s` fails.
[[nodiscard]] SimRun simulate(const FigureOptions& o, const std::string& name, const std::string& text,
                              const Net& net, Charge charge, double modelled_limit_s = 60);

}  // namespace nanopu::figures
