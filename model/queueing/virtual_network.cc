#include "model/queueing/virtual_network.h"

#include "model/queueing/virtual_fabric.h"

namespace nanopu::model {

IncastResult run_incast(const IncastConfig& c, rte_mempool* pool) {
  FabricConfig f;
  f.hosts = c.senders + 1;  // host 0 receives
  f.link_gbps = c.link_gbps;
  f.link_latency_ns = c.link_latency_ns;
  f.queue_bytes = c.queue_bytes;
  f.trimming = c.trimming;
  f.priorities = c.homa;
  f.homa = c.homa;
  f.rto_ns = c.rto_ns;
  f.rtt_packets = c.rtt_packets;
  IncastResult r;
  Fabric fabric(f, pool, [&](uint32_t, uint32_t, uint16_t, uint64_t, uint64_t at) {
    ++r.delivered;
    r.last_delivery_ns = static_cast<double>(at) / 1000;
  });
  for (uint32_t i = 1; i <= c.senders; ++i)
    fabric.send_at(0, i, 0, static_cast<uint16_t>(c.msg_bytes));
  (void)fabric.run(ps(c.time_limit_ns), [&] { return r.delivered == c.senders; });
  for (uint32_t i = 0; i <= c.senders; ++i) {
    const NicCounters& k = fabric.counters(i);
    r.retransmits += k.tx_retransmits;
    r.timeouts += k.tx_timeouts;
    r.nacks += k.rx_nacks;
  }
  r.trimmed = fabric.trimmed();
  r.dropped = fabric.dropped();
  r.queue = fabric.port0_queue();
  r.all_delivered = r.delivered == c.senders;
  return r;
}

}  // namespace nanopu::model
