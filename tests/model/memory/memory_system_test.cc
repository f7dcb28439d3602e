// The memory model behind NEBULA's Fig. 2 (model/memory/memory_system.h):
// what each buffer provisioning costs the DRAM, and where it saturates.
#include "model/memory/memory_system.h"

#include <gtest/gtest.h>

#include <cmath>

namespace nanopu::model {
namespace {

const RpcMemoryDemand kSet;  // MICA SETs (§III)
const double kPerConnection = per_connection_bytes(1024, 256, 512);

TEST(MemorySystemTest, ThePapersServersAddUpAndABadSetIsNamed) {
  EXPECT_EQ(MemorySystem::nebula_server().invalid(), "");
  EXPECT_EQ(MemorySystem::nebula_simulation().invalid(), "");
  MemorySystem m = MemorySystem::nebula_server();
  m.dram_bytes_per_s = -1;
  EXPECT_EQ(m.invalid(), "dram_bytes_per_s -1 is not positive");
  m = MemorySystem::nebula_server();
  m.dram_channels = 0;
  EXPECT_EQ(m.invalid(), "dram_channels is 0");
  m = MemorySystem::nebula_simulation();
  m.sustainable_share = 1.5;
  EXPECT_EQ(m.invalid(), "sustainable_share 1.5 is not in (0, 1]");
}

// §VII's MICA: the mix's and the value size's service times as published,
// and what a GET and a SET each ask of the memory system.
TEST(MemorySystemTest, MicasMixAndValueSizeGiveThePapersServiceTimesAndBytes) {
  EXPECT_DOUBLE_EQ(RpcMemoryDemand::mica(0.5, 512).service_ns, 630);
  EXPECT_DOUBLE_EQ(RpcMemoryDemand::mica(0.5, 256).service_ns, 573);
  EXPECT_DOUBLE_EQ(RpcMemoryDemand::mica(0.5, 64).service_ns, 510);
  EXPECT_DOUBLE_EQ(RpcMemoryDemand::mica(0.5, 16).service_ns, 510);  // under a line costs a line
  EXPECT_DOUBLE_EQ(RpcMemoryDemand::mica(0, 512).service_ns, 560);   // "drops by 70ns" at 0/100
  const RpcMemoryDemand set = RpcMemoryDemand::mica(0, 512);
  EXPECT_DOUBLE_EQ(set.request_bytes, kSet.request_bytes);
  EXPECT_DOUBLE_EQ(set.core_read_bytes, kSet.core_read_bytes);
  EXPECT_DOUBLE_EQ(set.core_write_bytes, kSet.core_write_bytes);
  EXPECT_DOUBLE_EQ(set.response_bytes, 0);
  const RpcMemoryDemand get = RpcMemoryDemand::mica(1, 512);
  EXPECT_DOUBLE_EQ(get.request_bytes, 64);
  EXPECT_DOUBLE_EQ(get.core_read_bytes, 64 + 512);
  EXPECT_DOUBLE_EQ(get.core_write_bytes, 0);
  EXPECT_DOUBLE_EQ(get.response_bytes, 512);
  // A GET's reply buffer, provisioned per connection, misses the LLC as
  // the receive buffers do; bounded, it costs nothing.
  const MemorySystem m = MemorySystem::nebula_simulation();
  const MemoryTraffic conn = traffic_per_rpc(m, BufferProvisioning::kPerConnection, kPerConnection, get);
  EXPECT_DOUBLE_EQ(conn.response_bytes, 2 * (1 - conn.buffer_hit) * 512);
  EXPECT_DOUBLE_EQ(traffic_per_rpc(m, BufferProvisioning::kSharedBounded, 81e3, get).per_rpc(), 64 + 512);
}

// Table II's DRAM is exhausted at its sustainable share of 31 GB/s.
TEST(MemorySystemTest, TheSimulatedServersDramSaturatesAtItsSustainableShare) {
  const MemorySystem m = MemorySystem::nebula_simulation();
  const MemoryTraffic t = traffic_per_rpc(m, BufferProvisioning::kPerConnection, kPerConnection, kSet);
  const double limit = m.usable_bytes_per_s() / t.per_rpc();
  EXPECT_NEAR(m.usable_bytes_per_s() / 1e9, 25.4, 0.1);
  EXPECT_NEAR(at_load(m, t, kSet, 0.5 * limit).utilization, 0.5, 1e-9);
  EXPECT_TRUE(at_load(m, t, kSet, 1.001 * limit).saturated);
  EXPECT_FALSE(at_load(m, t, kSet, 0.99 * limit).saturated);
}

TEST(MemorySystemTest, PerConnectionBuffersOutgrowTheLlcAndCostTheDramTheirLines) {
  // §VI: 1024 servers × 256 messages × 512 B, "136MB".
  EXPECT_NEAR(kPerConnection / 1e6, 134.2, 0.1);
  // As the paper provisions each server's: per connection, or its pool.
  EXPECT_DOUBLE_EQ(paper_buffer_bytes(MemorySystem::nebula_server(), BufferProvisioning::kPerConnection),
                   kPerConnection);
  EXPECT_DOUBLE_EQ(paper_buffer_bytes(MemorySystem::nebula_server(), BufferProvisioning::kSharedBounded), 540e3);
  EXPECT_DOUBLE_EQ(paper_buffer_bytes(MemorySystem::nebula_simulation(), BufferProvisioning::kSharedBounded), 81e3);
  EXPECT_DOUBLE_EQ(paper_buffer_bytes(MemorySystem::nebula_simulation(), BufferProvisioning::kIdealReuse), 0);
  const MemorySystem m = MemorySystem::nebula_server();
  const MemoryTraffic conn = traffic_per_rpc(m, BufferProvisioning::kPerConnection, kPerConnection, kSet);
  const MemoryTraffic bounded = traffic_per_rpc(m, BufferProvisioning::kSharedBounded, 540e3, kSet);
  const MemoryTraffic ideal = traffic_per_rpc(m, BufferProvisioning::kIdealReuse, kPerConnection, kSet);
  // Half the LLC's new lines are the buffers'; 22.5 MB of 134 MB is in it.
  EXPECT_NEAR(conn.buffer_hit, 22.5e6 / kPerConnection, 1e-9);
  EXPECT_DOUBLE_EQ(conn.nic_fetch_bytes, (1 - conn.buffer_hit) * kSet.request_bytes);
  EXPECT_DOUBLE_EQ(conn.nic_writeback_bytes, conn.nic_fetch_bytes);
  // The core reads its 64 B and fetches and writes back its 512 B, whatever the buffers.
  EXPECT_DOUBLE_EQ(ideal.core_bytes, 64 + 2 * 512);
  EXPECT_DOUBLE_EQ(conn.core_bytes, ideal.core_bytes);
  // A pool bounded by the SLO fits: no buffer traffic, as ideal reuse.
  EXPECT_DOUBLE_EQ(bounded.buffer_hit, 1);
  EXPECT_DOUBLE_EQ(bounded.per_rpc(), ideal.per_rpc());
  EXPECT_GT(conn.per_rpc(), 1.8 * ideal.per_rpc());
}

TEST(MemorySystemTest, TheDramSaturatesAtItsBandwidthAndWaitsRiseTowardIt) {
  const MemorySystem m = MemorySystem::nebula_server();
  const MemoryTraffic t = traffic_per_rpc(m, BufferProvisioning::kPerConnection, kPerConnection, kSet);
  const double limit = m.dram_bytes_per_s / t.per_rpc();  // RPCs per second the DRAM carries
  // As a share of 60 cores at S̄ = 630 ns: Fig. 2's 0.61, within the SLO's margin.
  const double load = limit / (m.cores * 1e9 / kSet.service_ns);
  EXPECT_GT(load, 0.6);
  EXPECT_LT(load, 0.7);
  const LoadedMemory idle = at_load(m, t, kSet, 0);
  EXPECT_DOUBLE_EQ(idle.service_ns, kSet.service_ns);
  double before = 0;
  for (double share : {0.2, 0.5, 0.8, 0.95, 0.99}) {
    const LoadedMemory l = at_load(m, t, kSet, share * limit);
    EXPECT_FALSE(l.saturated);
    EXPECT_NEAR(l.utilization, share, 1e-9);
    EXPECT_GT(l.wait_ns, before);
    EXPECT_DOUBLE_EQ(l.service_ns, kSet.service_ns + kSet.stalls * l.wait_ns);
    before = l.wait_ns;
  }
  // An M/D/1 channel (3 ns a line) waits little until the DRAM is nearly full.
  EXPECT_LT(at_load(m, t, kSet, 0.5 * limit).wait_ns, 2.0);
  const LoadedMemory full = at_load(m, t, kSet, limit);
  EXPECT_TRUE(full.saturated);
  EXPECT_TRUE(std::isinf(full.service_ns));
}

}  // namespace
}  // namespace nanopu::model
