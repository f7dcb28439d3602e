#include "model/memory/memory_system.h"

#include <algorithm>
#include <limits>

#include "absl/strings/str_cat.h"

namespace nanopu::model {
namespace {

constexpr double kLineBytes = 64;

}  // namespace

MemorySystem MemorySystem::nebula_server() {
  return {.name = "NEBULA §III server (60 cores, 45 MB LLC, 6 x DDR4-2666, 300 Gb/s)",
          .cores = 60,
          .llc_bytes = 45e6,
          .dram_channels = 6,
          .dram_bytes_per_s = 6 * 21.333e9,
          .dram_latency_ns = 80,
          .nic_bits_per_s = 300e9,
          .bounded_pool_bytes = 540e3};
}

MemorySystem MemorySystem::nebula_simulation() {
  return {.name = "NEBULA Table II (16 cores, 16 MB LLC, 2 x 15.5 GB/s, 120 Gb/s)",
          .cores = 16,
          .llc_bytes = 16e6,
          .dram_channels = 2,
          .dram_bytes_per_s = 2 * 15.5e9,
          .dram_latency_ns = 45,
          .nic_bits_per_s = 120e9,
          .sustainable_share = 0.82,
          .bounded_pool_bytes = 81e3};
}

std::string MemorySystem::invalid() const {
  if (cores == 0) return "cores is 0";
  if (!(llc_bytes > 0)) return absl::StrCat("llc_bytes ", llc_bytes, " is not positive");
  if (dram_channels == 0) return "dram_channels is 0";
  if (!(dram_bytes_per_s > 0)) return absl::StrCat("dram_bytes_per_s ", dram_bytes_per_s, " is not positive");
  if (!(dram_latency_ns >= 0)) return absl::StrCat("dram_latency_ns ", dram_latency_ns, " is negative");
  if (!(nic_bits_per_s > 0)) return absl::StrCat("nic_bits_per_s ", nic_bits_per_s, " is not positive");
  if (!(sustainable_share > 0 && sustainable_share <= 1))
    return absl::StrCat("sustainable_share ", sustainable_share, " is not in (0, 1]");
  return "";
}

const char* provisioning_name(BufferProvisioning p) {
  switch (p) {
    case BufferProvisioning::kPerConnection: return "per connection";
    case BufferProvisioning::kSharedBounded: return "shared, bounded by the SLO";
    case BufferProvisioning::kIdealReuse: return "ideal reuse";
  }
  return "?";
}

double per_connection_bytes(uint32_t peers, uint32_t outstanding, uint32_t max_message_bytes) {
  return static_cast<double>(peers) * outstanding * max_message_bytes;
}

double paper_buffer_bytes(const MemorySystem& m, BufferProvisioning p) {
  switch (p) {
    case BufferProvisioning::kPerConnection: return per_connection_bytes(1024, 256, 512);
    case BufferProvisioning::kSharedBounded: return m.bounded_pool_bytes;
    case BufferProvisioning::kIdealReuse: return 0;
  }
  return 0;
}

RpcMemoryDemand RpcMemoryDemand::mica(double get_share, double value_bytes) {
  const double v = std::max(64.0, value_bytes);
  // §VII-B's three points, 50/50; beyond 512 B the 256-to-512 slope.
  const double mean_ns = v <= 256 ? 510 + (v - 64) * (573 - 510) / (256 - 64) : 573 + (v - 256) * (630 - 573) / 256;
  const double set = 1 - get_share;
  RpcMemoryDemand d;
  d.request_bytes = set * (v + 64) + get_share * 64;
  d.core_read_bytes = 64 + get_share * v;
  d.core_write_bytes = set * v;
  d.response_bytes = get_share * v;
  d.stalls = 2;
  d.service_ns = mean_ns + (get_share - 0.5) * 140;
  return d;
}

MemoryTraffic traffic_per_rpc(const MemorySystem& m, BufferProvisioning p, double buffer_bytes,
                              const RpcMemoryDemand& d) {
  MemoryTraffic t;
  // The core's lines: read, and written (fetched for ownership, then written back).
  t.core_bytes = d.core_read_bytes + 2 * d.core_write_bytes;
  if (p == BufferProvisioning::kIdealReuse || buffer_bytes <= 0) return t;
  const double buffer_lines = d.request_bytes + d.response_bytes;
  const double entering = buffer_lines + d.core_read_bytes + d.core_write_bytes;
  const double buffers_share = entering > 0 ? buffer_lines / entering : 0;
  t.buffer_hit = std::min(1.0, m.llc_bytes * buffers_share / buffer_bytes);
  t.nic_fetch_bytes = (1 - t.buffer_hit) * d.request_bytes;
  t.nic_writeback_bytes = (1 - t.buffer_hit) * d.request_bytes;
  t.response_bytes = 2 * (1 - t.buffer_hit) * d.response_bytes;
  return t;
}

LoadedMemory at_load(const MemorySystem& m, const MemoryTraffic& t, const RpcMemoryDemand& d,
                     double requests_per_s) {
  LoadedMemory l;
  l.bytes_per_s = requests_per_s * t.per_rpc();
  l.utilization = l.bytes_per_s / m.usable_bytes_per_s();
  if (l.utilization >= 1) {
    l.saturated = true;
    l.wait_ns = l.service_ns = std::numeric_limits<double>::infinity();
    return l;
  }
  // M/D/1 at one channel: a line takes 64 B at the channel's rate.
  const double line_ns = kLineBytes / (m.usable_bytes_per_s() / m.dram_channels) * 1e9;
  l.wait_ns = line_ns * l.utilization / (2 * (1 - l.utilization));
  l.service_ns = d.service_ns + d.stalls * l.wait_ns;
  return l;
}

}  // namespace nanopu::model
