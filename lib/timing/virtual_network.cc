#include "lib/timing/virtual_network.h"

#include <cmath>
#include <deque>
#include <memory>
#include <queue>
#include <string>

#include "lib/contract/message.h"
#include "lib/contract/tx_message.h"
#include "lib/contract/thread_fifos.h"
#include "nanopu/app_header.h"
#include "nanopu/stats.h"
#include "lib/contract/context_table.h"
#include "nic/transport/ndp/ndp_transport.h"

namespace nanopu::timing {
namespace {

constexpr uint16_t kContext = 7;
constexpr uint32_t kReceiverIp = 0x0a000001;
uint64_t ps(double ns) { return static_cast<uint64_t>(std::llround(ns * 1000)); }

struct Packet {
  uint32_t src_ip = 0, dst_ip = 0;
  wire::NdpHeader h;
  rte_mbuf* m = nullptr;  // DATA: the packet (64 bytes of room, then payload); else null
  size_t payload = 0;
  uint32_t bytes = 0;     // on the wire
};

struct Event {
  enum class Kind : uint8_t { kAtSwitch, kPortFree, kAtHost, kTick };
  uint64_t t = 0, seq = 0;
  Kind kind = Kind::kTick;
  uint32_t index = 0;     // port or host
  Packet p;
  bool operator>(const Event& o) const { return t != o.t ? t > o.t : seq > o.seq; }
};

class Network;

// One host's NIC as the transport sees it: frames leave on its uplink.
class HostSink final : public TransportSink {
 public:
  HostSink(Network* n, uint32_t host) : net_(n), host_(host) {}
  bool deliver(rte_mbuf* msg, ContextEntry* dst) override;
  void send_data(rte_mbuf* m, uint32_t dst_ip, const wire::TransportHeader& h, size_t payload) override;
  void send_control(uint32_t dst_ip, const wire::TransportHeader& h) override;

 private:
  Network* net_;
  uint32_t host_;
};

struct Host {
  uint32_t ip = 0;
  NicCounters counters;
  std::unique_ptr<NdpTransport> transport;
  std::unique_ptr<HostSink> sink;
  uint64_t uplink_free = 0;
};

struct Port {
  std::deque<Packet> control, data;  // control and trimmed headers go first
  uint32_t data_bytes = 0;
  uint64_t busy_until = 0;
  bool free_pending = false;
};

class Network {
 public:
  Network(const IncastConfig& c, rte_mempool* pool) : c_(c), pool_(pool), contexts_(990, 4096) {
    NdpParams p;
    p.rtt_packets = c.rtt_packets;
    p.outbound_slots = 16;
    p.reassembly_slots = 256;
    p.rto_ticks = ps(c.rto_ns);
    p.max_timeouts = 1000;
    p.pull_interval_ticks = serialization(static_cast<uint32_t>(wire::kSegmentBytes + wire::kFrameHeaderBytes));
    p.reassembly_expiry_ticks = ps(1e9);
    p.completion_memory_ticks = ps(1e9);
    p.reserved_priority0_slots = 0;
    p.context_slots = 256;
    p.context_packets = 8192;
    hosts_.resize(c.senders + 1);
    ports_.resize(c.senders + 1);
    for (uint32_t i = 0; i <= c.senders; ++i) {
      Host& h = hosts_[i];
      h.ip = kReceiverIp + i;  // host 0 receives
      p.incarnation = static_cast<uint16_t>(i + 1);
      h.transport = std::make_unique<NdpTransport>(p, pool, &h.counters);
      h.sink = std::make_unique<HostSink>(this, i);
    }
    static int n = 0;
    const std::string tag = std::to_string(n++);
    fifos_.rx = *MsgFifo::create("vn_rx" + tag, 1024);
    fifos_.tx = *MsgFifo::create("vn_tx" + tag, 1024);
    fifos_.signals = &signals_;
    (void)contexts_.bind(kContext, &fifos_);
  }

  IncastResult run() {
    for (uint32_t i = 1; i <= c_.senders; ++i) send_message(i);
    push({ps(c_.rto_ns) / 8, 0, Event::Kind::kTick, 0, {}});
    while (!events_.empty()) {
      const Event e = events_.top();
      events_.pop();
      if (e.t > ps(c_.time_limit_ns) || result_.delivered == c_.senders) break;
      now_ = e.t;
      switch (e.kind) {
        case Event::Kind::kAtSwitch: at_switch(e.p); break;
        case Event::Kind::kPortFree:
          ports_[e.index].free_pending = false;
          kick(e.index);
          break;
        case Event::Kind::kAtHost: at_host(e.index, e.p); break;
        case Event::Kind::kTick:
          for (Host& h : hosts_) h.transport->on_tick(now_, *h.sink);
          push({now_ + std::max<uint64_t>(ps(c_.rto_ns) / 8, 1), 0, Event::Kind::kTick, 0, {}});
          break;
      }
    }
    for (Host& h : hosts_) {
      result_.retransmits += h.counters.tx_retransmits;
      result_.timeouts += h.counters.tx_timeouts;
      result_.nacks += h.counters.rx_nacks;
    }
    result_.all_delivered = result_.delivered == c_.senders;
    drain();
    return result_;
  }

  // Sink side.
  void leave(uint32_t host, Packet p) {
    Host& h = hosts_[host];
    const uint64_t start = std::max(now_, h.uplink_free);
    h.uplink_free = start + serialization(p.bytes);
    push({h.uplink_free + ps(c_.link_latency_ns), 0, Event::Kind::kAtSwitch, 0, p});
  }
  void delivered(rte_mbuf* msg, ContextEntry* dst) {
    dst->packets -= msg->nb_segs;
    rte_pktmbuf_free(msg);
    ++result_.delivered;
    result_.last_delivery_ns = static_cast<double>(now_) / 1000;
  }
  uint32_t ip_of(uint32_t host) const { return hosts_[host].ip; }

 private:
  uint64_t serialization(uint32_t bytes) const { return ps(bytes * 8 / c_.link_gbps); }
  void push(Event e) {
    e.seq = seq_++;
    events_.push(e);
  }

  void send_message(uint32_t host) {
    // The message as a thread writes it (lib/contract/tx_message.h).
    const auto len = static_cast<uint16_t>(c_.msg_bytes);
    rte_mbuf* msg = alloc_tx_message(pool_, AppHeader{kReceiverIp, kContext, len}.word(), kContext);
    if (msg == nullptr) return;
    Host& h = hosts_[host];
    h.transport->on_message(msg, 0, *h.sink);
  }

  uint32_t port_of(uint32_t ip) const { return ip - kReceiverIp; }

  void at_switch(Packet p) {
    const uint32_t port = port_of(p.dst_ip);
    Port& q = ports_[port];
    if (p.m != nullptr) {  // DATA
      if (q.data_bytes + p.bytes > c_.queue_bytes) {
        rte_pktmbuf_free(p.m);
        p.m = nullptr;
        if (!c_.trimming) {
          ++result_.dropped;
          return;
        }
        // NDP: keep the header, cut the payload (docs/wire.md: 72 bytes), send it first.
        ++result_.trimmed;
        p.h.flags |= wire::kFlagChop;
        p.bytes = static_cast<uint32_t>(wire::kTrimmedFrameBytes);
        q.control.push_back(p);
      } else {
        q.data_bytes += p.bytes;
        q.data.push_back(p);
        if (port == 0) result_.queue.emplace_back(static_cast<double>(now_) / 1000, q.data_bytes);
      }
    } else {
      q.control.push_back(p);
    }
    kick(port);
  }

  void kick(uint32_t port) {
    Port& q = ports_[port];
    if (q.busy_until > now_) {
      if (!q.free_pending) {
        q.free_pending = true;
        push({q.busy_until, 0, Event::Kind::kPortFree, port, {}});
      }
      return;
    }
    if (q.control.empty() && q.data.empty()) return;
    std::deque<Packet>& from = q.control.empty() ? q.data : q.control;
    const Packet p = from.front();
    from.pop_front();
    if (&from == &q.data) {
      q.data_bytes -= p.bytes;
      if (port == 0) result_.queue.emplace_back(static_cast<double>(now_) / 1000, q.data_bytes);
    }
    q.busy_until = now_ + serialization(p.bytes);
    push({q.busy_until + ps(c_.link_latency_ns), 0, Event::Kind::kAtHost, port, p});
    q.free_pending = true;
    push({q.busy_until, 0, Event::Kind::kPortFree, port, {}});
  }

  void at_host(uint32_t host, const Packet& p) {
    Host& h = hosts_[host];
    wire::FrameHeader f;
    f.src_ip = p.src_ip;
    f.dst_ip = p.dst_ip;
    f.ndp = p.h;
    if (p.h.flags & wire::kFlagData) {
      ContextEntry* dst = contexts_.lookup(p.h.dst_context);
      if (dst == nullptr) {
        rte_pktmbuf_free(p.m);
        return;
      }
      h.transport->on_data(p.m, f, p.payload, dst, now_, *h.sink);
    } else {
      h.transport->on_control(nullptr, f, now_, *h.sink);
    }
  }

  void drain() {  // packets still in flight when the run stopped
    while (!events_.empty()) {
      if (events_.top().p.m != nullptr) rte_pktmbuf_free(events_.top().p.m);
      events_.pop();
    }
    for (Port& q : ports_)
      for (Packet& p : q.data) rte_pktmbuf_free(p.m);
  }

  const IncastConfig& c_;
  rte_mempool* pool_;
  ContextTable contexts_;
  ThreadFifos fifos_;
  CoreSignals signals_;
  std::vector<Host> hosts_;
  std::vector<Port> ports_;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> events_;
  uint64_t now_ = 0, seq_ = 0;
  IncastResult result_;
};

bool HostSink::deliver(rte_mbuf* msg, ContextEntry* dst) {
  net_->delivered(msg, dst);
  return true;
}

void HostSink::send_data(rte_mbuf* m, uint32_t dst_ip, const wire::TransportHeader& h, size_t payload) {
  net_->leave(host_, Packet{net_->ip_of(host_), dst_ip, h.ndp, m, payload,
                            static_cast<uint32_t>(wire::kFrameHeaderBytes + payload)});
}

void HostSink::send_control(uint32_t dst_ip, const wire::TransportHeader& h) {
  net_->leave(host_, Packet{net_->ip_of(host_), dst_ip, h.ndp, nullptr, 0,
                            static_cast<uint32_t>(wire::kFrameHeaderBytes + wire::kControlPayloadBytes)});
}

}  // namespace

IncastResult run_incast(const IncastConfig& c, rte_mempool* pool) { return Network(c, pool).run(); }

}  // namespace nanopu::timing
