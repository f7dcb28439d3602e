// A switch of a simulation (docs/design.md §11) on modelled links and the
// one modelled clock, queueing as nanopu-switch does: the same output
// queue (model/switch/output_queue.h). Each host's port is one end of a SimLink whose other end is a
// switch port; in a fabric a port may be linked to another switch's
// (join). The switch forwards by destination IPv4 — a route per host, one
// port or several equal ones (ECMP: chosen by a hash of the frame's source
// and destination addresses, so a flow keeps its path, or with `spray` of
// its packet's identity, as NDP and Homa assume: "Re-architecting
// datacenter networks and stacks for low latency and high performance",
// §3.1) — after `latency_ns`, to its output's queue (trimming or tail
// drop, control first, eight priorities by TOS: output_queue.h). An
// output hands its next frame to its
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
#include "lib/wire/frame.h"
#include "model/network/sim_link.h"
#include "model/switch/output_queue.h"

namespace nanopu::model {

struct SimSwitchParams {
  double gbps = 200;             // every link of the switch, both ways
  double link_latency_ns = 43.75;
  double latency_ns = 0;         // port to port, before the output queue
  uint32_t data_queue_bytes = 81 * 1024;  // per output (nanopu-switch --queue_bytes)
  uint32_t control_queue_bytes = 1u << 20;
  bool trimming = true;          // false: tail drop
  bool priorities = false;       // eight strict-priority data queues by TOS
  bool spray = false;            // ECMP per packet, not per flow
};

struct SimSwitchCounters {
  uint64_t forwarded = 0, trimmed = 0, tail_dropped = 0, control_dropped = 0, no_route = 0;
};

class SimSwitch {
 public:
  // `ports` ports, each on a link of the switch's rate and latency.
  SimSwitch(const SimSwitchParams& p, uint32_t ports);
  // A port per entry, each on a link of its own rate and latency.
  SimSwitch(const SimSwitchParams& p, const std::vector<SimLinkParams>& port_links);
  ~SimSwitch();
  SimSwitch(const SimSwitch&) = delete;
  SimSwitch& operator=(const SimSwitch&) = delete;

  // The host end of port i's link (the host's PacketIo).
  [[nodiscard]] SimPort& host_port(uint32_t i) { return links_[i]->a(); }
  // Port i's link, if this switch owns it (every port's but those joined
  // to a link another switch owns).
  [[nodiscard]] bool owns_link(uint32_t i) const { return links_[i] != nullptr; }
  [[nodiscard]] const SimLink& link(uint32_t i) const { return *links_[i]; }
  [[nodiscard]] SimLink& link(uint32_t i) { return *links_[i]; }
  [[nodiscard]] uint32_t ports() const { return static_cast<uint32_t>(ends_.size()); }
  // Whether `end` is this switch's end of one of its ports' links.
  [[nodiscard]] bool has_end(const SimPort* end) const {
    for (const SimPort* e : ends_)
      if (e == end) return true;
    return false;
  }
  // Port `port` becomes the far end of `other`'s port `other_port`'s link
  // (a switch-to-switch link, which `other` owns).
  void join(uint32_t port, SimSwitch& other, uint32_t other_port);
  // Frames to `ip` leave by `port`; several calls: by any of them (ECMP).
  void add_route(uint32_t ip, uint32_t port) { routes_[ip].push_back(port); }

  // Takes what has arrived by now and sends what each output may; true if
  // it moved anything.
  bool poll();
  // When it next has something to do of its own (a queued frame becomes
  // eligible or an output's link frees); max() if nothing is queued.
  [[nodiscard]] uint64_t next_event() const;
  // When it next needs a poll: that, or a frame arriving at a port (the
  // loop polls a switch only then: SimLoop::add_group).
  [[nodiscard]] uint64_t next_due() const;
  [[nodiscard]] const SimSwitchCounters& counters() const { return counters_; }
  // Frees what is queued or on the links: before the hosts' pools go.
  void discard_in_flight();

 private:
  struct Queued {
    uint64_t eligible_at;  // when it has crossed the switch (latency_ns after arriving)
    rte_mbuf* frame;
  };
  struct Output {
    explicit Output(const OutputQueueParams& p) : q(p) {}
    OutputQueue<Queued> q;  // model/switch/output_queue.h: nanopu-switch's policy, one home
    uint32_t queued = 0;    // frames, control and data
  };
  void enqueue(uint32_t port, rte_mbuf* m, bool whole_data, uint8_t tos, uint64_t eligible_at);
  void count_queued(uint32_t port);
  bool serve(uint32_t port, uint64_t now);
  // The output for g (ECMP among the route's ports), or -1: no route.
  [[nodiscard]] int route(const wire::FrameGlance& g, uint32_t in) const;

  SimSwitchParams p_;
  uint64_t latency_ticks_;
  std::vector<std::unique_ptr<SimLink>> links_;  // null: joined to another switch's
  std::vector<SimPort*> ends_;                    // this switch's end of each port's link
  std::vector<Output> out_;
  absl::flat_hash_map<uint32_t, std::vector<uint32_t>> routes_;
  SimSwitchCounters counters_;
  uint64_t queued_ = 0;  // frames in the output queues: none, nothing to serve
  // The outputs with frames queued (and some emptied since: pruned by
  // poll): a fabric's switch has many ports and few busy at once.
  std::vector<uint32_t> busy_outputs_;
};

}  // namespace nanopu::model
