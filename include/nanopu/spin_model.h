// The modelled column for sPIN handlers (docs/design.md §12): what PsPIN's
// hardware would take for a packet, from the paper's published breakdown
// ("PsPIN: A high-performance low-power architecture for flexible
// in-network compute", §IV-B1 and Fig. 6) and the cycles a handler declares
// (spin::Handle::charge_cycles). Every figure here is *modelled*.
#pragma once

#include <cstdint>

#include "nanopu/spin.h"

namespace nanopu::spin {

// PsPIN's configuration as the paper evaluates it.
struct PspinConfig {
  uint32_t clusters = 4;
  uint32_t hpus_per_cluster = 8;
  double ghz = 1.0;                // HPU clock: 1 cycle = 1 ns
  double line_gbps = 400.0;
  double scheduler_ns = 3.0;       // a task request to the cluster-local scheduler
  double copy_ns_64 = 12.0;        // L2 packet buffer -> cluster L1, 64 B ...
  double copy_ns_1024 = 26.0;      // ... and 1024 B (linear between)
  double assign_ns = 1.0;          // the task to an HPU driver
  double invoke_ns = 7.0;          // the runtime calls the handler
  double complete_ns = 2.0;        // the completion store and its notification back
  double arbitration_ns_max = 8.0; // round-robin arbiters, when others are served first
  [[nodiscard]] uint32_t hpus() const { return clusters * hpus_per_cluster; }
};

// One packet of `bytes` through a handler of `cycles` (at least 1, the
// return), unloaded: 26 ns for 64 B and an empty handler, 40 ns for 1024 B
// (PsPIN §IV-B1).
[[nodiscard]] double modelled_packet_latency_ns(uint32_t bytes, double cycles, const PspinConfig& c = {});
// Packets of `bytes` back to back through handlers of `cycles` each on
// every HPU: min(line rate, HPUs x bytes / time an HPU is held per packet)
// (PsPIN Fig. 6; the copy to L1 overlaps the previous handler).
[[nodiscard]] double modelled_throughput_gbps(uint32_t bytes, double cycles, const PspinConfig& c = {});

// A context's run, modelled: its mean packet and the cycles its handlers
// declared per packet.
struct ModelledContext {
  double mean_packet_bytes = 0;
  double cycles_per_packet = 0;
  double packet_latency_ns = 0;
  double throughput_gbps = 0;
  double measured_ns_per_packet = 0;  // beside it: the NIC core's, measured
};
[[nodiscard]] ModelledContext modelled(const ContextReport& r, const PspinConfig& c = {});

}  // namespace nanopu::spin
