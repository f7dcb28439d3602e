// DPDK's EAL, started once per process (no hugepages), for the figures that
// run real transports (incast, homa) or whole hosts (raft, chain, rdma) on
// a modelled clock; and the mempool of incast's and homa's hosts, mbufs
// with nanopu's MsgMeta.
#include <rte_mbuf.h>

#include <algorithm>

#include "bench/figures/figures.h"
#include "lib/contract/message.h"
#include "runtime/platform/eal.h"

namespace nanopu::figures {

bool model_eal(size_t hosts, size_t mb_per_host) {
  static const bool started = [hosts, mb_per_host] {
    EalParams c;
    // Room for the hosts' pools, as nanopu-sim makes it (runtime/simulation/sim_run.cc).
    c.no_huge_memory_mb = std::max<uint64_t>(c.no_huge_memory_mb, 256 + mb_per_host * hosts);
    c.lcores = {0};
    c.huge = HugePages::kOff;
    c.eal_log_level = 3;
    c.telemetry = false;
    return eal_init(c).ok();
  }();
  return started;
}

rte_mempool* model_mempool() {
  static rte_mempool* pool = [] {
    if (!model_eal()) return static_cast<rte_mempool*>(nullptr);
    // Enough for the homa workload's 16 hosts, each with 64 messages of up
    // to 64 packets in flight.
    return rte_pktmbuf_pool_create("figures_model", 65535, 256, kMsgMetaBytes,
                                   RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
  }();
  return pool;
}

}  // namespace nanopu::figures
