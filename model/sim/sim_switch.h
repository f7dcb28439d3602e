// The switch of a simulation (docs/design.md §11): nanopu-switch's model
// (tools/switch/software_switch.h) on modelled links and the one modelled
// clock. Each host's port is one end of a SimLink whose other end is a
// switch port; the switch forwards by destination IPv4 (a route per host,
// from the topology), after `latency_ns`, to an output queue: a bounded
// data queue and a control queue that always goes first (control packets
// and, with trimming, DATA trimmed to its header when the data queue is
// full: NDP, nanoPU OSDI'21 §5). With `priorities` the data queue is eight
// strict-priority queues by the IPv4 TOS sharing one buffer, as
// nanopu-switch --priorities (Homa's priorities, SIGCOMM'18 §3.4). An output hands its next frame to its
// link when the link has finished the one before, so the link's own
// serialization is the output's.
#pragma once

#include <rte_mbuf.h>

#include <cstdint>
#include <deque>
#include <limits>
#include <memory>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "model/sim/sim_link.h"

namespace nanopu::model {

struct SimSwitchParams {
  double gbps = 200;             // every link of the switch, both ways
  double link_latency_ns = 43.75;
  double latency_ns = 0;         // port to port, before the output queue
  uint32_t data_queue_bytes = 81 * 1024;  // per output (nanopu-switch --queue_bytes)
  uint32_t control_queue_bytes = 1u << 20;
  bool trimming = true;          // false: tail drop
  bool priorities = false;       // eight strict-priority data queues by TOS
};

struct SimSwitchCounters {
  uint64_t forwarded = 0, trimmed = 0, tail_dropped = 0, control_dropped = 0, no_route = 0;
};

class SimSwitch {
 public:
  SimSwitch(const SimSwitchParams& p, uint32_t ports);
  ~SimSwitch();
  SimSwitch(const SimSwitch&) = delete;
  SimSwitch& operator=(const SimSwitch&) = delete;

  // The host end of port i's link (the host's PacketIo).
  [[nodiscard]] SimPort& host_port(uint32_t i) { return links_[i]->a(); }
  [[nodiscard]] const SimLink& link(uint32_t i) const { return *links_[i]; }
  [[nodiscard]] SimLink& link(uint32_t i) { return *links_[i]; }
  [[nodiscard]] uint32_t ports() const { return static_cast<uint32_t>(links_.size()); }
  void add_route(uint32_t ip, uint32_t port) { routes_[ip] = port; }

  // Takes what has arrived by now and sends what each output may; true if
  // it moved anything.
  bool poll();
  // When it next has something to do of its own (a queued frame becomes
  // eligible or an output's link frees); max() if nothing is queued.
  [[nodiscard]] uint64_t next_event() const;
  [[nodiscard]] const SimSwitchCounters& counters() const { return counters_; }
  // Frees what is queued or on the links: before the hosts' pools go.
  void discard_in_flight();

 private:
  struct Queued {
    uint64_t eligible_at;
    rte_mbuf* frame;
  };
  static constexpr int kLevels = 8;
  struct Output {
    std::deque<Queued> control;
    std::deque<Queued> data[kLevels];  // [0] only without priorities
    uint32_t control_bytes = 0, data_bytes = 0;
  };
  void enqueue(uint32_t port, rte_mbuf* m, bool whole_data, uint8_t tos, uint64_t eligible_at);
  // The highest data queue whose head may leave by `now`, or -1.
  [[nodiscard]] static int eligible_level(const Output& o, uint64_t now);
  bool serve(uint32_t port, uint64_t now);

  SimSwitchParams p_;
  uint64_t latency_ticks_;
  std::vector<std::unique_ptr<SimLink>> links_;
  std::vector<Output> out_;
  absl::flat_hash_map<uint32_t, uint32_t> routes_;
  SimSwitchCounters counters_;
};

}  // namespace nanopu::model
