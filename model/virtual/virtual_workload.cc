#include "model/virtual/virtual_workload.h"

#include <algorithm>
#include <cmath>
#include <random>

#include "model/virtual/virtual_fabric.h"
#include "lib/wire/frame.h"

namespace nanopu::model {
namespace {

// W3's CDF (Homa paper, SIGCOMM'18, Fig. 1 / §5.1) at these sizes; beyond
// the last point the rest of the mass (0.68 %) is clipped to 65535 B.
struct CdfPoint {
  double bytes, cdf;
};
constexpr CdfPoint kW3[] = {
    {8, 0.0649},     {32, 0.0973},    {64, 0.1553},    {96, 0.2861},    {128, 0.3516},
    {192, 0.4430},   {256, 0.4979},   {384, 0.6806},   {512, 0.7849},   {768, 0.8352},
    {1024, 0.8632},  {1536, 0.8936},  {2048, 0.9089},  {3072, 0.9263},  {4096, 0.9350},
    {6144, 0.9539},  {8192, 0.9643},  {12288, 0.9777}, {16384, 0.9847}, {24576, 0.9885},
    {32768, 0.9904}, {49152, 0.9923}, {65535, 0.9932},
};

}  // namespace

uint16_t w3_message_bytes(double u) {
  if (u <= kW3[0].cdf) return static_cast<uint16_t>(kW3[0].bytes);
  for (size_t i = 1; i < std::size(kW3); ++i) {
    if (u <= kW3[i].cdf) {
      const CdfPoint& a = kW3[i - 1];
      const CdfPoint& b = kW3[i];
      const double f = (u - a.cdf) / (b.cdf - a.cdf);
      return static_cast<uint16_t>(std::lround(std::exp(std::log(a.bytes) + f * (std::log(b.bytes) - std::log(a.bytes)))));
    }
  }
  return 65535;
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
  std::mt19937_64 rng(c.seed);
  std::uniform_real_distribution<double> uni(0, 1);
  // Sizes first: the offered rate follows from their mean.
  std::vector<uint16_t> sizes(c.messages);
  double wire_bytes = 0;
  for (uint16_t& s : sizes) {
    s = w3_message_bytes(uni(rng));
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
  std::exponential_distribution<double> gap(per_host_rate * c.hosts);
  std::uniform_int_distribution<uint32_t> host(0, c.hosts - 1), other(1, c.hosts - 1);
  double t_ns = 0;
  for (uint32_t i = 0; i < c.messages; ++i) {
    t_ns += gap(rng);
    const uint32_t src = host(rng);
    const uint32_t dst = (src + other(rng)) % c.hosts;
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
