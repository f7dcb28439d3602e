// Virtual-time incast (nanoPU (OSDI'21) §5.2.3, nanoPU tail-latency version §4): N senders and one
// receiver, each a real NdpTransport or HomaTransport (nic/transport — the
// same sender, receiver, reassembly and packetization code as the live NIC
// core), joined by the modelled switch of virtual_fabric.h: per-port
// serialization at the link rate, link latency, a bounded bottleneck queue
// that trims or drops (tail drop), control and trimmed packets first, and
// for Homa eight priority levels. Time is picoseconds; mbufs are real (an
// EAL must be up). Deterministic.
#pragma once

#include <rte_mempool.h>

#include <cstdint>
#include <utility>
#include <vector>

namespace nanopu::model {

struct IncastConfig {
  uint32_t senders = 80;
  uint32_t msg_bytes = 1024;        // one 1088-byte packet each (nanoPU tail-latency version §4)
  double link_gbps = 200;
  double link_latency_ns = 43.75;
  uint32_t queue_bytes = 81000;     // 81 KB: 74 of the 80 packets (nanoPU tail-latency version §4)
  bool trimming = true;             // false: tail drop
  double rto_ns = 9400;             // the prototype's retransmit timeout, upper value (docs/wire.md)
  uint16_t rtt_packets = 2;
  double time_limit_ns = 1e7;       // give up after this much modelled time
  bool homa = false;                // Homa (with a priority switch) instead of NDP
};

struct IncastResult {
  bool all_delivered = false;
  uint32_t delivered = 0;
  double last_delivery_ns = 0;      // the last message complete at the receiver
  uint64_t trimmed = 0, dropped = 0, retransmits = 0, timeouts = 0, nacks = 0;
  std::vector<std::pair<double, uint32_t>> queue;  // (ns, bottleneck queue bytes) at each change
};

// pool: mbufs with nanopu's MsgMeta private area (lib/contract/message.h).
[[nodiscard]] IncastResult run_incast(const IncastConfig& c, rte_mempool* pool);

}  // namespace nanopu::model
