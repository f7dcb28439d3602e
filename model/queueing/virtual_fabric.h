// The virtual-time network both models run on (virtual_network.h: incast;
// virtual_workload.h: message-size workloads): hosts, each a real transport
// of the NIC core's own code (NdpTransport or HomaTransport, nic/transport),
// joined by one modelled output-queued switch — per-port serialization at
// the link rate, link latency, a bounded data buffer that trims (NDP) or
// drops (tail drop), control and trimmed packets first, and with
// `priorities` eight strict-priority data queues by TOS as nanopu-switch
// --priorities. Time is picoseconds; mbufs are real (an EAL must be up);
// deterministic for a given input.
#pragma once

#include <rte_mempool.h>

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <queue>
#include <utility>
#include <vector>

#include "lib/contract/context_table.h"
#include "lib/contract/core_signals.h"
#include "model/switch/output_queue.h"
#include "lib/contract/thread_fifos.h"
#include "model/timing/picoseconds.h"
#include "nanopu/stats.h"
#include "nic/transport/transport.h"

namespace nanopu::model {

struct FabricConfig {
  uint32_t hosts = 2;
  double link_gbps = 200;
  double link_latency_ns = 43.75;
  uint32_t queue_bytes = 81000;  // each output port's data buffer
  bool trimming = true;          // false: tail drop
  bool priorities = false;       // eight strict-priority data queues by TOS
  bool homa = false;             // every host's transport: Homa (else NDP)
  double rto_ns = 9400;
  uint16_t rtt_packets = 2;      // NDP
  uint32_t rtt_bytes = 10240;    // Homa
  uint32_t overcommit = 8;       // Homa
  uint32_t outbound_slots = 16;  // messages a host has in flight; the rest wait their turn
};

class Fabric {
 public:
  static constexpr uint16_t kContext = 7;
  static constexpr uint32_t kFirstIp = 0x0a000001;
  // Called for each message delivered: sender host, receiver host, length,
  // when it was handed to the sender's NIC and when it was delivered (ps).
  using OnDelivery = std::function<void(uint32_t src, uint32_t dst, uint16_t len, uint64_t sent_ps,
                                        uint64_t delivered_ps)>;

  Fabric(const FabricConfig& c, rte_mempool* pool, OnDelivery on_delivery);
  ~Fabric();
  Fabric(const Fabric&) = delete;
  Fabric& operator=(const Fabric&) = delete;

  // A message of len bytes from host src to host dst, handed to src's NIC at
  // time t_ps (it waits in the host's queue while its NIC has no free slot).
  void send_at(uint64_t t_ps, uint32_t src, uint32_t dst, uint16_t len);
  // Runs events until `stop()` says so or until limit_ps; returns the time reached.
  uint64_t run(uint64_t limit_ps, const std::function<bool()>& stop);

  [[nodiscard]] const NicCounters& counters(uint32_t host) const { return hosts_[host].counters; }
  [[nodiscard]] uint64_t trimmed() const { return trimmed_; }
  [[nodiscard]] uint64_t dropped() const { return dropped_; }
  // (ns, data bytes queued) at each change of port 0's buffer.
  [[nodiscard]] const std::vector<std::pair<double, uint32_t>>& port0_queue() const { return queue0_; }

  // The sink's side (HostSink).
  void leave(uint32_t host, uint32_t dst_ip, const wire::TransportHeader& h, rte_mbuf* m,
             size_t payload, uint32_t bytes);
  void delivered(uint32_t host, rte_mbuf* msg, ContextEntry* dst);

 private:
  struct Packet {
    uint32_t src_ip = 0, dst_ip = 0;
    wire::TransportHeader h;
    rte_mbuf* m = nullptr;  // DATA: the packet (64 bytes of room, then payload); else null
    size_t payload = 0;
    uint32_t bytes = 0;     // on the wire
  };
  struct Event {
    enum class Kind : uint8_t { kAtSwitch, kPortFree, kAtHost, kTick, kSend, kUplinkFree };
    uint64_t t = 0, seq = 0;
    Kind kind = Kind::kTick;
    uint32_t index = 0;  // port or host
    Packet p;
    bool operator>(const Event& o) const { return t != o.t ? t > o.t : seq > o.seq; }
  };
  struct Pending {
    uint32_t dst;
    uint16_t len;
    uint64_t t;
  };
  struct Host {
    uint32_t ip = 0;
    NicCounters counters;
    std::unique_ptr<Transport> transport;
    std::unique_ptr<TransportSink> sink;
    std::deque<Pending> waiting;  // messages its NIC has no slot for yet
  };
  struct Port {
    explicit Port(const OutputQueueParams& p) : q(p) {}
    OutputQueue<Packet> q;  // model/switch/output_queue.h: nanopu-switch's policy, one home
    uint64_t busy_until = 0;
    bool free_pending = false;
  };

  [[nodiscard]] uint64_t serialization(uint32_t bytes) const;
  void push(Event e);
  void hand_over(uint32_t host);  // queued messages into the NIC while it has slots
  void at_switch(Packet p);
  // Puts the next packet of a queue on its link: a switch output port (to
  // host `index`) or a host's uplink (to the switch).
  void kick(Port& q, bool uplink, uint32_t index);
  // Control first, then the highest data priority (FIFO without priorities).
  void at_host(uint32_t host, const Packet& p);
  void note_queue(uint32_t port);

  FabricConfig c_;
  rte_mempool* pool_;
  OnDelivery on_delivery_;
  ContextTable contexts_;
  ThreadFifos fifos_;
  CoreSignals signals_;
  std::vector<Host> hosts_;
  std::vector<Port> ports_;    // switch output port i leads to host i
  std::vector<Port> uplinks_;  // host i's NIC to the switch: unbounded, ordered as a port
  std::priority_queue<Event, std::vector<Event>, std::greater<>> events_;
  uint64_t now_ = 0, seq_ = 0, tick_ps_ = 0;
  uint64_t trimmed_ = 0, dropped_ = 0;
  std::vector<std::pair<double, uint32_t>> queue0_;
};

}  // namespace nanopu::model
