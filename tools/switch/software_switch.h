// nanopu-switch's engine: an output-queued switch between DPDK ports. Each
// output port queues with the one policy every nanopu switch shares
// (model/switch/output_queue.h: a bounded data buffer that trims a DATA
// packet that does not fit to its 72-byte header, CHOP set, or drops it in
// tail-drop mode; control and trimmed headers first; with `priorities`
// eight strict-priority data queues by the IPv4 TOS sharing the buffer)
// and serializes at the configured link rate. Queue occupancy is sampled
// over time.
//
// Forwarding is by destination IPv4: static routes, else learned from the
// source address of frames seen on a port.
//
// A port that refuses what is queued for it (its host's ring full, or its
// link down because the host went away) holds its queue only so long: a
// down link's queue is dropped at once, and so is everything that arrives
// for it until the link is up again, as a hardware switch drops frames for
// a port without carrier; a queue that could send nothing for
// `stall_drop_ms` is dropped too. Either way the switch goes idle (an
// adaptive poller may sleep) rather than retrying a dead peer flat out, and
// the transports retransmit what mattered.
#pragma once

#include <rte_mbuf.h>
#include <rte_mempool.h>

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "model/switch/output_queue.h"

namespace nanopu::apps {

inline constexpr uint32_t kSwitchPriorities = 8;

struct SwitchParams {
  double link_gbps = 200;            // per output port
  uint32_t data_queue_bytes = 81 * 1024;
  uint32_t control_queue_bytes = 1u << 20;
  bool trimming = true;              // false: plain tail drop
  double sample_period_us = 1;       // queue-occupancy samples (0: none)
  bool priorities = false;           // eight strict-priority data queues by TOS
  double stall_drop_ms = 100;        // a queue that sends nothing this long is dropped
};

struct SwitchCounters {
  uint64_t rx = 0, forwarded = 0, trimmed = 0, tail_dropped = 0, control_dropped = 0,
           no_route = 0, not_ipv4 = 0;
  uint64_t dropped_port_down = 0;  // queued for, or sent to, a port whose link is down
  uint64_t dropped_stalled = 0;    // queued for a port that took nothing for stall_drop_ms
  uint64_t data_by_priority[kSwitchPriorities] = {};  // data packets forwarded per queue
};

struct OccupancySample {
  double t_us;
  uint32_t port;
  uint32_t data_bytes;
  uint32_t control_bytes;
};

// One switch port: a DPDK port, or (in-process, to spare DPDK's port limit)
// the two rte_rings behind a host's net_ring port.
struct SwitchPort {
  uint16_t eth_port = 0;
  struct rte_ring* from_host = nullptr;  // set: ring mode
  struct rte_ring* to_host = nullptr;
};

class SoftwareSwitch {
 public:
  SoftwareSwitch(const SwitchParams& p, std::vector<SwitchPort> ports, rte_mempool* pool);
  ~SoftwareSwitch();
  SoftwareSwitch(const SoftwareSwitch&) = delete;
  SoftwareSwitch& operator=(const SoftwareSwitch&) = delete;

  void add_route(uint32_t ip, uint32_t port_index) { routes_[ip] = port_index; }
  // Receives from every port, queues, and sends what each link has had time
  // to serialize by now. Returns packets moved.
  unsigned poll();
  void start_clock();  // time zero of the occupancy samples
  // Nothing queued on any output (an adaptive poller may sleep).
  [[nodiscard]] bool empty() const;

  [[nodiscard]] const SwitchCounters& counters() const { return counters_; }
  [[nodiscard]] const std::vector<OccupancySample>& samples() const { return samples_; }
  [[nodiscard]] uint32_t max_data_bytes(uint32_t port) const { return out_[port].max_data; }
  [[nodiscard]] bool write_csv(const std::string& path) const;

 private:
  struct Output {
    using Queue = model::OutputQueue<rte_mbuf*>;
    explicit Output(const model::OutputQueueParams& p) : q(p) {}
    Queue q;  // model/switch/output_queue.h: the policy every switch shares
    uint32_t max_data = 0;
    uint64_t link_free_tsc = 0;  // when the link finishes the packet on it
    uint64_t refused_since_tsc = 0;  // first refused send since the last accepted one (0: none)
    bool port_down = false;          // link seen down: arrivals are dropped until it is up
  };
  void enqueue(uint32_t port, rte_mbuf* m, bool is_data, uint8_t priority, uint64_t now);
  [[nodiscard]] rte_mbuf* trim(rte_mbuf* m);
  void sample(uint64_t now);
  // Sends what output `port`'s link has had time for by `now`; packets sent.
  unsigned serialize(uint32_t port, uint64_t now);
  // A send to `port` refused at `now`: drop its queue if its link is down
  // or it has refused for stall_drop_ms.
  void refused(uint32_t port, uint64_t now);
  // Frees everything queued on `o`; how many packets.
  static uint64_t flush(Output& o);
  [[nodiscard]] bool link_down(uint32_t port) const;

  SwitchParams p_;
  [[nodiscard]] uint16_t rx(uint32_t port, rte_mbuf** pkts, uint16_t n);
  [[nodiscard]] bool tx(uint32_t port, rte_mbuf* m);

  std::vector<SwitchPort> ports_;
  rte_mempool* pool_;
  std::vector<Output> out_;
  absl::flat_hash_map<uint32_t, uint32_t> routes_;
  double tsc_per_bit_;
  uint64_t sample_period_tsc_;
  uint64_t stall_tsc_;
  uint64_t next_sample_ = 0;
  uint64_t t0_ = 0;
  SwitchCounters counters_;
  std::vector<OccupancySample> samples_;
};

}  // namespace nanopu::apps

namespace nanopu::apps {
// Configures and starts `port` (one RX/TX queue pair) for the switch.
[[nodiscard]] bool start_switch_port(uint16_t port, rte_mempool* pool);
}  // namespace nanopu::apps
