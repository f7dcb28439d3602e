#include "model/queueing/virtual_workload.h"

#include <algorithm>
#include <cmath>

#include "model/queueing/virtual_fabric.h"
#include "nanopu/message_sizes.h"
#include "nanopu/seeded_draw.h"
#include "lib/wire/frame.h"

namespace nanopu::model {

uint16_t w3_message_bytes(double u) {
  return static_cast<uint16_t>(draw_message_bytes(SizeWorkload::kW3, u, 65535));
}

double unloaded_ns(uint16_t bytes, double link_gbps, double link_latency_ns) {
  const size_t npkts = wire::packets_for(bytes);
  const double wire_bytes = static_cast<double>(bytes) + static_cast<double>(npkts * wire::kFrameHeaderBytes);
  const double last = static_cast<double>(wire::segment_payload_bytes(bytes, static_cast<uint8_t>(npkts - 1)) +
                                          wire::kFrameHeaderBytes);
  return (wire_bytes + last) * 8 / link_gbps + 2 * link_latency_ns;
}

WorkloadResult run_workload(const WorkloadConfig& c, rte_mempool* pool) {
  WorkloadResult r;
  SeededDraw rng(c.seed);  // one seed, one workload with any standard library
  // Sizes first: the offered rate follows from their mean.
  std::vector<uint16_t> sizes(c.messages);
  double wire_bytes = 0;
  for (uint16_t& s : sizes) {
    s = w3_message_bytes(rng.unit());
    wire_bytes += s + wire::packets_for(s) * wire::kFrameHeaderBytes;
  }
  const double mean_bytes = wire_bytes / std::max<uint32_t>(1, c.messages);
  // Per host: messages per ns so that its link is `load` busy.
  const double per_host_rate = c.load * c.link_gbps / 8 / mean_bytes;
  r.offered_gbps_per_host = c.load * c.link_gbps;
  FabricConfig f;
  f.hosts = c.hosts;
  f.link_gbps = c.link_gbps;
  f.link_latency_ns = c.link_latency_ns;
  f.queue_bytes = c.queue_bytes;
  f.trimming = true;
  f.priorities = c.homa;
  f.homa = c.homa;
  f.rto_ns = c.rto_ns;
  f.outbound_slots = 64;
  Fabric fabric(f, pool, [&](uint32_t, uint32_t, uint16_t len, uint64_t sent, uint64_t at) {
    ++r.delivered;
    const double ns = static_cast<double>(at - sent) / 1000;
    r.messages.push_back({len, ns / unloaded_ns(len, c.link_gbps, c.link_latency_ns)});
  });
  // Poisson arrivals at every host, merged: the next message goes from a
  // host chosen uniformly, after an exponential gap at the total rate.
  double t_ns = 0;
  for (uint32_t i = 0; i < c.messages; ++i) {
    t_ns += rng.exponential(per_host_rate * c.hosts);
    const auto src = static_cast<uint32_t>(rng.below(c.hosts));
    const auto dst = static_cast<uint32_t>((src + rng.int_between(1, c.hosts - 1)) % c.hosts);
    fabric.send_at(ps(t_ns), src, dst, std::max<uint16_t>(sizes[i], 8));
  }
  r.offered = c.messages;
  (void)fabric.run(ps(t_ns + c.drain_ns), [&] { return r.delivered == c.messages; });
  for (uint32_t i = 0; i < c.hosts; ++i) {
    const NicCounters& k = fabric.counters(i);
    r.retransmits += k.tx_retransmits;
    r.timeouts += k.tx_timeouts;
    r.grants += k.tx_grants;
    r.resends += k.tx_resends;
  }
  r.trimmed = fabric.trimmed();
  return r;
}

}  // namespace nanopu::model
