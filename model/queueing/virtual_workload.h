// Virtual-time message workloads (the Homa paper's experiment, SIGCOMM'18
// §5.2): `hosts` hosts on one modelled switch (virtual_fabric.h), each
// offering messages at a Poisson rate that loads its link to `load`, sizes
// drawn from a workload's size distribution, destinations uniform among the
// others; each message's slowdown is its time from offer to delivery over
// the time it would take alone on an idle network. Every host runs the NIC
// core's own NdpTransport or HomaTransport.
#pragma once

#include <rte_mempool.h>

#include <cstdint>
#include <vector>

namespace nanopu::model {

// Message sizes of the Homa paper's W3 ("all applications in a Google
// datacenter", nanopu/message_sizes.h). nanopu's messages stop at 65535 B:
// the 0.2 % of W3's messages that are longer are sent as 65535 B (so W3's
// bytes, half of them in those, are far fewer here).
[[nodiscard]] uint16_t w3_message_bytes(double uniform01);

struct WorkloadConfig {
  uint32_t hosts = 16;
  double load = 0.5;             // fraction of each host's link its messages take
  uint32_t messages = 20000;     // offered in all
  bool homa = false;             // Homa with a priority switch, else NDP (FIFO, trimming)
  double link_gbps = 200;
  double link_latency_ns = 43.75;
  uint32_t queue_bytes = 81000;  // switch buffer per output port
  double rto_ns = 9400;
  uint64_t seed = 1;
  double drain_ns = 2e7;         // after the last offer, let messages finish this long
};

struct WorkloadResult {
  uint32_t offered = 0, delivered = 0;
  struct Message {
    uint16_t bytes;
    double slowdown;  // latency / unloaded latency
  };
  std::vector<Message> messages;  // delivered ones, in delivery order
  double offered_gbps_per_host = 0;
  uint64_t trimmed = 0, retransmits = 0, timeouts = 0, grants = 0, resends = 0;
};

// The latency of a message of `bytes` alone on an idle network: its packets
// serialized on the sender's link, the last one again at the switch, two
// link latencies (ns).
[[nodiscard]] double unloaded_ns(uint16_t bytes, double link_gbps, double link_latency_ns);

// pool: mbufs with nanopu's MsgMeta private area (lib/contract/message.h).
[[nodiscard]] WorkloadResult run_workload(const WorkloadConfig& c, rte_mempool* pool);

}  // namespace nanopu::model
