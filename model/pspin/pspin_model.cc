// PsPIN's timing, from the paper's own figures (nanopu/spin_model.h).
#include <algorithm>

#include "nanopu/spin_model.h"

namespace nanopu::spin {
namespace {

double copy_ns(uint32_t bytes, const PspinConfig& c) {
  const double b = std::clamp<double>(bytes, 64, 1024);
  return c.copy_ns_64 + (b - 64) * (c.copy_ns_1024 - c.copy_ns_64) / (1024 - 64);
}

double handler_ns(double cycles, const PspinConfig& c) { return std::max(cycles, 1.0) / c.ghz; }

}  // namespace

double modelled_packet_latency_ns(uint32_t bytes, double cycles, const PspinConfig& c) {
  return c.scheduler_ns + copy_ns(bytes, c) + c.assign_ns + c.invoke_ns + handler_ns(cycles, c) +
         c.complete_ns;
}

double modelled_throughput_gbps(uint32_t bytes, double cycles, const PspinConfig& c) {
  // An HPU is held from the invocation to its completion store; the copy
  // into L1 and the scheduling of the next task overlap it.
  const double held_ns = c.invoke_ns + handler_ns(cycles, c) + 1.0;
  const double hpu_bound = c.hpus() * bytes * 8.0 / held_ns;  // bits per ns = Gbit/s
  return std::min(c.line_gbps, hpu_bound);
}

ModelledContext modelled(const ContextReport& r, const PspinConfig& c) {
  ModelledContext m;
  if (r.packets == 0) return m;
  m.mean_packet_bytes = static_cast<double>(r.bytes) / static_cast<double>(r.packets);
  m.cycles_per_packet = static_cast<double>(r.declared_cycles) / static_cast<double>(r.packets);
  const auto bytes = static_cast<uint32_t>(m.mean_packet_bytes + 0.5);
  m.packet_latency_ns = modelled_packet_latency_ns(bytes, m.cycles_per_packet, c);
  m.throughput_gbps = modelled_throughput_gbps(bytes, m.cycles_per_packet, c);
  m.measured_ns_per_packet = static_cast<double>(r.handler_ns) / static_cast<double>(r.packets);
  return m;
}

}  // namespace nanopu::spin
