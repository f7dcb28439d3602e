// The memory hierarchy behind the NIC, first order (NEBULA (ISCA'20) §III,
// Fig. 1): a NIC that writes arriving packets into the LLC (DDIO's
// write-allocate), cores whose RPCs read and dirty DRAM-resident data, dirty
// lines written back, and the DRAM's bandwidth they all share. What it
// answers: how many bytes of DRAM traffic one RPC costs under a receive
// buffer provisioning, and how long a core's DRAM access waits at a load —
// which the queueing figures add to each RPC's service time, so that a
// system whose buffers outgrow the LLC saturates on memory before its cores
// (NEBULA Fig. 2). The paper's own model (its Appendix A) is not in the
// seeds' text; what this one assumes is written beside each number and in
// docs/design.md, "NEBULA's memory system". Every output is *modelled*.
#pragma once

#include <cstdint>
#include <string>

namespace nanopu::model {

// A server's memory system. Bandwidths in bytes per second (1 GB/s = 1e9).
struct MemorySystem {
  std::string name;
  uint32_t cores = 1;
  double llc_bytes = 0;
  uint32_t dram_channels = 1;
  double dram_bytes_per_s = 0;  // all channels together
  double dram_latency_ns = 0;   // unloaded
  double nic_bits_per_s = 0;
  // The share of dram_bytes_per_s the DRAM carries before its queue runs
  // away (row conflicts, refresh, read-write turnarounds keep a real one
  // below its nominal rate). 1 in §III's queueing model, whose DRAM is
  // exhausted at its rate.
  double sustainable_share = 1;
  // NEBULA's shared receive pool for this server: 10 × E[N̂q] slots
  // (§IV-C: 540 KB for the 60-core server, §VI: 81 KB for Table II's).
  double bounded_pool_bytes = 0;
  [[nodiscard]] double usable_bytes_per_s() const { return sustainable_share * dram_bytes_per_s; }

  // §III's server ("the current best-performing server architecture for
  // key-value serving"): 60 cores, 45 MB of LLC, six DDR4 channels, a
  // 300 Gb/s NIC. The channels' speed is not stated: DDR4-2666 (21.3 GB/s
  // each, 128 GB/s in all) is derived from the 127 GB/s the paper says
  // exhausts it; the unloaded latency, 80 ns, is a typical server's (assumed).
  static MemorySystem nebula_server();
  // Table II's simulated server: 16 cores, 16 MB of LLC, 2 × 15.5 GB/s of
  // DDR4 at 45 ns, and (§VI) a 120 Gb/s NIC. Its DRAM saturates at 82 % of
  // the 31 GB/s (*fitted*: §VII-A's RPCValet saturates at "about 25.3GB/s
  // ..., greater than 80% of the server's maximum of 31GB/s").
  static MemorySystem nebula_simulation();
  // Empty when the set adds up; otherwise what does not, the value named.
  [[nodiscard]] std::string invalid() const;
};

// How receive buffers are provisioned (NEBULA §II-C, §III, §VI).
enum class BufferProvisioning : uint8_t {
  kPerConnection,  // every peer's outstanding messages: RSS, RPCValet (136 MB in §VI)
  kSharedBounded,  // one pool sized from the SLO's queue: NEBULA (81 KB in §VI)
  kIdealReuse,     // every buffer reused in the LLC, whatever its size: SRQ in §III
};
[[nodiscard]] const char* provisioning_name(BufferProvisioning p);

// Connection-oriented buffers: peers × outstanding messages each × the
// largest message (NEBULA §VI: 1024 × 256 × 512 B ≈ 136 MB).
[[nodiscard]] double per_connection_bytes(uint32_t peers, uint32_t outstanding, uint32_t max_message_bytes);

// The receive buffers' footprint on server m as the paper provisions them:
// §VI's 1024 peers × 256 messages × 512 B per connection, the server's
// bounded pool, nothing for ideal reuse.
[[nodiscard]] double paper_buffer_bytes(const MemorySystem& m, BufferProvisioning p);

// What one RPC asks of the memory system (§III: MICA SETs, "a hash-index
// lookup (64B read) followed by a 512B value write", S̄ = 630 ns).
struct RpcMemoryDemand {
  double request_bytes = 512 + 64;  // into the receive buffer: the value, its key and headers (a line)
  double core_read_bytes = 64;      // DRAM lines the core reads (the index bucket)
  // DRAM-resident lines the core writes (the log's value): each fetched
  // for ownership before it is written, then written back when evicted.
  double core_write_bytes = 512;
  // What the core writes into a send buffer (a GET's value copied into its
  // reply), provisioned as the receive buffers are: out of the LLC it is
  // fetched for ownership and written back as they are.
  double response_bytes = 0;
  double stalls = 2;                // DRAM accesses on the RPC's critical path (index, value's lines)
  double service_ns = 630;          // on an idle server, its unloaded DRAM accesses included

  // MICA (§VI-§VII) at a GET share and value size, the mix's mean. A SET
  // brings key and value (one line more) and writes the value into the log;
  // a GET brings its key (a line), reads the value from the log and copies
  // it into its reply; either reads one index line. Values under 64 B
  // cost a line (§VII-B). Service times are the paper's: 630 / 573 / 510 ns
  // at 512 / 256 / 64 B (50/50, §VII-B: 9 % and 19 % less), linear between;
  // a SET 70 ns below the mix's mean and a GET 70 above ("the mean service
  // time drops by 70ns" at 0/100), at every size (assumed).
  [[nodiscard]] static RpcMemoryDemand mica(double get_share, double value_bytes);
};

// One RPC's DRAM traffic under a provisioning (per RPC, bytes).
struct MemoryTraffic {
  // The share of arriving request lines that find their buffer in the LLC.
  double buffer_hit = 1;
  double nic_fetch_bytes = 0;      // Fig. 1 step 1: a buffer fetched before the NIC writes it
  double nic_writeback_bytes = 0;  // step 4: the NIC's dirty buffer lines evicted
  double core_bytes = 0;           // step 3 and its writebacks
  double response_bytes = 0;       // a send buffer out of the LLC: fetched for ownership, written back
  [[nodiscard]] double per_rpc() const { return nic_fetch_bytes + nic_writeback_bytes + core_bytes + response_bytes; }
};

// buffer_bytes: the receive buffers' footprint (ignored for kIdealReuse).
// A buffer is in the LLC with the probability the LLC's share of it gives:
// the buffers hold the share of the LLC that their lines are of the lines
// entering it (request and response lines against the core's), and clients
// interleave at random, so any buffer is as likely as any other (§II-C:
// this "effectively eliminat[es] the probability of finding these buffers
// in the server's LLC" once they outgrow it). A missed buffer is fetched
// and, dirtied, later written back.
[[nodiscard]] MemoryTraffic traffic_per_rpc(const MemorySystem& m, BufferProvisioning p, double buffer_bytes,
                                            const RpcMemoryDemand& d);

// The DRAM at one offered load (requests per second).
struct LoadedMemory {
  double bytes_per_s = 0;
  double utilization = 0;  // of the DRAM's usable bandwidth
  double wait_ns = 0;      // a line's wait at its channel, beyond the unloaded latency
  double service_ns = 0;   // an RPC's mean service time at this load (infinite when saturated)
  bool saturated = false;  // the DRAM cannot carry the load
};
// A line's wait is an M/D/1 queue's at its channel (the channel's lines in
// Poisson arrival, each 64 B at the channel's rate): first order, as the
// paper's model is; it rises steeply only as the DRAM nears its bandwidth.
[[nodiscard]] LoadedMemory at_load(const MemorySystem& m, const MemoryTraffic& t, const RpcMemoryDemand& d,
                                   double requests_per_s);

}  // namespace nanopu::model
