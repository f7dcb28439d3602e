// The mempool the virtual-time network figures (incast, homa) run on: DPDK's
// EAL started once per process (no hugepages), mbufs with nanopu's MsgMeta.
#include <rte_mbuf.h>

#include "bench/figures/figures.h"
#include "lib/contract/message.h"
#include "runtime/platform/eal.h"

namespace nanopu::figures {

rte_mempool* model_mempool() {
  static rte_mempool* pool = [] {
    EalParams c;
    c.lcores = {0};
    c.huge = HugePages::kOff;
    c.eal_log_level = 3;
    if (!eal_init(c).ok()) return static_cast<rte_mempool*>(nullptr);
    // Enough for the homa workload's 16 hosts, each with 64 messages of up
    // to 64 packets in flight.
    return rte_pktmbuf_pool_create("figures_model", 65535, 256, kMsgMetaBytes,
                                   RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
  }();
  return pool;
}

}  // namespace nanopu::figures
