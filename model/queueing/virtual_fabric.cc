#include "model/queueing/virtual_fabric.h"

#include <cstring>
#include <string>

#include "lib/contract/message.h"
#include "lib/contract/tx_message.h"
#include "nanopu/app_header.h"
#include "nic/transport/factory.h"

namespace nanopu::model {
namespace {

// One host's NIC as the transport sees it: frames leave on its uplink.
class HostSink final : public TransportSink {
 public:
  HostSink(Fabric* f, uint32_t host) : fabric_(f), host_(host) {}
  bool deliver(rte_mbuf* msg, ContextEntry* dst) override {
    fabric_->delivered(host_, msg, dst);
    return true;
  }
  void send_data(rte_mbuf* m, uint32_t dst_ip, const wire::TransportHeader& h, size_t payload) override {
    fabric_->leave(host_, dst_ip, h, m, payload, static_cast<uint32_t>(wire::kFrameHeaderBytes + payload));
  }
  void send_control(uint32_t dst_ip, const wire::TransportHeader& h) override {
    fabric_->leave(host_, dst_ip, h, nullptr, 0,
                   static_cast<uint32_t>(wire::kFrameHeaderBytes + wire::kControlPayloadBytes));
  }

 private:
  Fabric* fabric_;
  uint32_t host_;
};

}  // namespace

Fabric::Fabric(const FabricConfig& c, rte_mempool* pool, OnDelivery on_delivery)
    : c_(c), pool_(pool), on_delivery_(std::move(on_delivery)), contexts_(990, 4096) {
  TransportConfig t;
  TransportParams& p = t.common;
  p.outbound_slots = c.outbound_slots;
  p.reassembly_slots = 256;
  p.rto_ticks = ps(c.rto_ns);
  p.peer_dead_ticks = ps(c.rto_ns * 1000);  // a modelled peer is never merely slow for that long
  p.reassembly_expiry_ticks = ps(1e9);
  p.completion_memory_ticks = ps(1e9);
  p.reserved_priority0_slots = 0;
  p.context_slots = 256;
  p.context_packets = 1u << 20;
  t.ndp.rtt_packets = c.rtt_packets;
  t.ndp.pull_interval_ticks =
      serialization(static_cast<uint32_t>(wire::kSegmentBytes + wire::kFrameHeaderBytes));
  t.homa.rtt_bytes = c.rtt_bytes;
  t.homa.overcommit = c.overcommit;
  t.homa.resend_ticks = p.rto_ticks / 2;
  tick_ps_ = std::max<uint64_t>(ps(c.rto_ns) / 8, 1);
  hosts_.resize(c.hosts);
  // A switch port: the fabric's buffer and policy; no bound on control (a
  // trimmed header always fits). An uplink (a host's NIC): unbounded, in
  // the same order.
  ports_.assign(c.hosts, Port(OutputQueueParams{c.queue_bytes, std::numeric_limits<uint32_t>::max(), c.trimming,
                                                c.priorities}));
  uplinks_.assign(c.hosts, Port(OutputQueueParams{std::numeric_limits<uint32_t>::max(),
                                                  std::numeric_limits<uint32_t>::max(), c.trimming, c.priorities}));
  for (uint32_t i = 0; i < c.hosts; ++i) {
    Host& h = hosts_[i];
    h.ip = kFirstIp + i;
    p.incarnation = static_cast<uint16_t>(i + 1);
    h.transport = make_transport(c.homa ? wire::kIpProtoHoma : wire::kIpProtoNdp, t, pool, &h.counters);
    h.sink = std::make_unique<HostSink>(this, i);
  }
  static int n = 0;
  const std::string tag = std::to_string(n++);
  fifos_.rx = *MsgFifo::create("vf_rx" + tag, 1024);
  fifos_.tx[0] = *MsgFifo::create("vf_tx" + tag, 1024);
  fifos_.signals = &signals_;
  (void)contexts_.bind(kContext, &fifos_);
  push({tick_ps_, 0, Event::Kind::kTick, 0, {}});
}

Fabric::~Fabric() {  // packets still in flight when the run stopped
  while (!events_.empty()) {
    if (events_.top().p.m != nullptr) rte_pktmbuf_free(events_.top().p.m);
    events_.pop();
  }
  for (std::vector<Port>* v : {&ports_, &uplinks_})
    for (Port& q : *v) (void)q.q.clear([](const Packet& p) { rte_pktmbuf_free(p.m); });
  hosts_.clear();  // transports free what they hold
}

uint64_t Fabric::serialization(uint32_t bytes) const { return ps(bytes * 8 / c_.link_gbps); }

void Fabric::push(Event e) {
  e.seq = seq_++;
  events_.push(e);
}

void Fabric::send_at(uint64_t t_ps, uint32_t src, uint32_t dst, uint16_t len) {
  Event e{t_ps, 0, Event::Kind::kSend, src, {}};
  e.p.dst_ip = kFirstIp + dst;
  e.p.bytes = len;
  push(e);
}

void Fabric::hand_over(uint32_t host) {
  Host& h = hosts_[host];
  while (!h.waiting.empty() && h.transport->tx_capacity() != 0) {
    const Pending w = h.waiting.front();
    // The message as a thread writes it (lib/contract/tx_message.h), the
    // time it was offered in its first word (messages are >= 8 bytes).
    rte_mbuf* msg = alloc_tx_message(pool_, AppHeader{kFirstIp + w.dst, kContext, w.len}.word(), kContext);
    if (msg == nullptr) return;  // out of mbufs: try again at the next tick
    h.waiting.pop_front();
    std::memcpy(tx_segment_payload(msg), &w.t, sizeof w.t);
    h.transport->on_message(msg, now_, *h.sink);
  }
}

void Fabric::leave(uint32_t host, uint32_t dst_ip, const wire::TransportHeader& th, rte_mbuf* m,
                   size_t payload, uint32_t bytes) {
  // The NIC's transmit queue: control first, then data by priority (as the
  // switch), so a host's short message is not stuck behind its own bursts.
  Port& q = uplinks_[host];
  Packet p{hosts_[host].ip, dst_ip, th, m, payload, bytes};
  auto keep = [](Packet&, uint32_t*) { return true; };  // (unbounded: never trimmed)
  auto drop = [](const Packet&) {};
  if (m != nullptr)
    (void)q.q.offer_data(p, bytes, th.tos, keep, drop);
  else
    (void)q.q.offer_control(p, bytes, drop);
  kick(q, true, host);
}

void Fabric::delivered(uint32_t host, rte_mbuf* msg, ContextEntry* dst) {
  dst->packets -= msg->nb_segs;
  const AppHeader a = AppHeader::from_word(msg_meta(msg)->app_header);
  uint64_t sent = 0;
  if (a.len >= sizeof sent) std::memcpy(&sent, rte_pktmbuf_mtod(msg, const void*), sizeof sent);
  rte_pktmbuf_free(msg);
  if (on_delivery_) on_delivery_(a.ip - kFirstIp, host, a.len, sent, now_);
}

void Fabric::note_queue(uint32_t port) {
  if (port == 0) queue0_.emplace_back(static_cast<double>(now_) / 1000, ports_[0].q.data_bytes());
}

void Fabric::at_switch(Packet p) {
  const uint32_t port = p.dst_ip - kFirstIp;
  if (port >= ports_.size()) {
    if (p.m != nullptr) rte_pktmbuf_free(p.m);
    return;
  }
  Port& q = ports_[port];
  using Q = OutputQueue<Packet>;
  auto drop = [](const Packet& d) {
    if (d.m != nullptr) rte_pktmbuf_free(d.m);
  };
  // Keep the header, cut the payload (docs/wire.md: 72 bytes), send it
  // first. CHOP is bit 0x10 of byte 0 in both headers.
  auto trim = [](Packet& t, uint32_t* bytes) {
    rte_pktmbuf_free(t.m);
    t.m = nullptr;
    t.h.ndp.flags |= wire::kFlagChop;
    t.h.homa.flags |= wire::kHomaChop;
    t.bytes = static_cast<uint32_t>(wire::kTrimmedFrameBytes);
    *bytes = t.bytes;
    return true;
  };
  if (p.m != nullptr) {  // DATA
    const Q::Outcome o = q.q.offer_data(p, p.bytes, p.h.tos, trim, drop);
    trimmed_ += Q::trimmed(o);
    dropped_ += o == Q::Outcome::kTailDropped;
    if (o == Q::Outcome::kQueued) note_queue(port);
  } else {
    (void)q.q.offer_control(p, p.bytes, drop);
  }
  kick(q, false, port);
}

void Fabric::kick(Port& q, bool uplink, uint32_t index) {
  const Event::Kind free_kind = uplink ? Event::Kind::kUplinkFree : Event::Kind::kPortFree;
  if (q.busy_until > now_) {
    if (!q.free_pending) {
      q.free_pending = true;
      push({q.busy_until, 0, free_kind, index, {}});
    }
    return;
  }
  const auto head = q.q.next();
  if (head.entry == nullptr) return;
  const Packet p = q.q.pop(head);
  if (head.level != OutputQueue<Packet>::kControl && !uplink) note_queue(index);
  q.busy_until = now_ + serialization(p.bytes);
  push({q.busy_until + ps(c_.link_latency_ns), 0, uplink ? Event::Kind::kAtSwitch : Event::Kind::kAtHost,
        index, p});
  q.free_pending = true;
  push({q.busy_until, 0, free_kind, index, {}});
}

void Fabric::at_host(uint32_t host, const Packet& p) {
  Host& h = hosts_[host];
  wire::FrameHeader f;
  f.src_ip = p.src_ip;
  f.dst_ip = p.dst_ip;
  f.protocol = p.h.protocol;
  f.tos = p.h.tos;
  f.ndp = p.h.ndp;
  f.homa = p.h.homa;
  if (f.is_data()) {
    ContextEntry* dst = contexts_.lookup(f.dst_context());
    if (dst == nullptr) {
      rte_pktmbuf_free(p.m);
      return;
    }
    h.transport->on_data(p.m, f, p.payload, dst, now_, *h.sink);
  } else {
    h.transport->on_control(nullptr, f, now_, *h.sink);
  }
  hand_over(host);  // a completed message frees a slot
}

uint64_t Fabric::run(uint64_t limit_ps, const std::function<bool()>& stop) {
  while (!events_.empty()) {
    if (stop && stop()) break;
    const Event e = events_.top();
    if (e.t > limit_ps) break;
    events_.pop();
    now_ = e.t;
    switch (e.kind) {
      case Event::Kind::kAtSwitch: at_switch(e.p); break;
      case Event::Kind::kPortFree:
        ports_[e.index].free_pending = false;
        kick(ports_[e.index], false, e.index);
        break;
      case Event::Kind::kUplinkFree:
        uplinks_[e.index].free_pending = false;
        kick(uplinks_[e.index], true, e.index);
        break;
      case Event::Kind::kAtHost: at_host(e.index, e.p); break;
      case Event::Kind::kSend:
        hosts_[e.index].waiting.push_back({e.p.dst_ip - kFirstIp, static_cast<uint16_t>(e.p.bytes), now_});
        hand_over(e.index);
        break;
      case Event::Kind::kTick:
        for (uint32_t i = 0; i < hosts_.size(); ++i) {
          hosts_[i].transport->on_tick(now_, *hosts_[i].sink);
          hand_over(i);
        }
        push({now_ + tick_ps_, 0, Event::Kind::kTick, 0, {}});
        break;
    }
  }
  return now_;
}

}  // namespace nanopu::model
