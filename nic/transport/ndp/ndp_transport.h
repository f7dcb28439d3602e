// NDP as the nanoPU terminates it in the NIC (nanoPU §2.3, nanoPU tail-latency version §3.1, §4.2f;
// docs/wire.md): a sender (packetization buffer, PULL credit, ACK/NACK,
// retransmit timers) and a receiver (reassembly buffer, ACK|PULL, NACK,
// paced PULLs, exactly-once delivery) behind the Transport interface.
#pragma once

#include <algorithm>

#include "nic/transport/common/peer_liveness.h"
#include "nic/transport/common/peer_runs.h"
#include "nic/transport/common/transport_params.h"
#include "nic/transport/common/held_acks.h"
#include "nic/transport/ndp/ndp_params.h"
#include "nic/transport/ndp/ndp_receiver.h"
#include "nic/transport/ndp/ndp_sender.h"
#include "nic/transport/transport.h"

namespace nanopu {

class NdpTransport final : public Transport {
 public:
  NdpTransport(const TransportParams& c, const NdpParams& p, rte_mempool* pool, NicCounters* counters)
      : counters_(counters),
        held_(p.held_acks, p.ack_hold_ticks, counters),
        sender_(c, p, pool, counters, &peers_, &held_, &live_),
        receiver_(c, p, counters, &held_) {}

  [[nodiscard]] uint8_t protocol() const override { return wire::kIpProtoNdp; }
  void on_data(rte_mbuf* pkt, const wire::FrameHeader& h, size_t payload_bytes, ContextEntry* dst,
               uint64_t now, TransportSink& sink) override {
    if (peers_.heard(h.src_ip, h.ndp.incarnation)) sink.peer_restarted(h.src_ip);
    heard(h.src_ip, now);
    if (h.ndp.options & wire::kOptCarriesAck) {  // an ACK for one of ours rides along
      ++counters_->rx_acks_on_data;
      sender_.on_carried_ack(h, now, sink);
    }
    receiver_.on_data(pkt, h, payload_bytes, dst, now, sink);
  }
  void on_control(rte_mbuf* pkt, const wire::FrameHeader& h, uint64_t now,
                  TransportSink& sink) override {
    wire::AckList more;
    if ((h.ndp.options & wire::kOptAckList) && (h.ndp.flags & wire::kFlagAck))
      read_list(pkt, &more);
    rte_pktmbuf_free(pkt);
    heard(h.src_ip, now);
    const bool restarted = (h.ndp.flags & wire::kFlagGone) != 0 && peers_.forget(h.src_ip, h.ndp.dst_incarnation);
    sender_.on_control(h, now, sink);  // the refused message's notice first
    if (restarted) sink.peer_restarted(h.src_ip);
    if (more.empty()) return;
    // The messages its list names, each as its own whole-message ACK
    // (docs/wire.md, "Lists"): the same checks (slot, id, run, peer).
    counters_->rx_acks_listed += more.count;
    wire::FrameHeader a = h;
    for (uint8_t i = 0; i < more.count; ++i) {
      a.ndp = wire::listed_ack(h.ndp, more.msgs[i]);
      sender_.on_control(a, now, sink);
    }
  }
  void on_message(rte_mbuf* msg, uint64_t now, TransportSink& sink) override {
    sender_.send_message(msg, now, sink);
  }
  void on_tick(uint64_t now, TransportSink& sink) override {
    sender_.tick(now, sink);
    receiver_.tick(now, sink);
    held_.expire(now, sink);
  }
  [[nodiscard]] uint32_t tx_capacity() const override { return sender_.free_slots(); }
  [[nodiscard]] uint32_t outbound_in_use() const override { return sender_.in_flight(); }
  [[nodiscard]] uint32_t inbound_in_use() const override { return receiver_.slots_in_use(); }
  [[nodiscard]] uint64_t next_timer_deadline() const override {
    return std::min(sender_.next_deadline(), held_.next_deadline());
  }
  [[nodiscard]] uint64_t next_tick_work() const override {
    return std::min({sender_.next_tick_work(), receiver_.next_tick_work(), held_.next_deadline()});
  }
  void on_link_restored(uint64_t now) override { live_.restart_clock(now); }
  void set_packet_tap(PacketTap* tap) override { receiver_.set_tap(tap); }

 private:
  // The list in an ACK's payload (lib/wire/ack_list.h); a malformed one is
  // counted and ignored (the ACK itself still counts).
  void read_list(const rte_mbuf* pkt, wire::AckList* more) {
    if (pkt == nullptr) return;  // a model's control packet has no payload
    uint8_t copy[wire::kControlPayloadBytes];
    const size_t payload = pkt->pkt_len - std::min<size_t>(pkt->pkt_len, wire::kFrameHeaderBytes);
    const size_t len = std::min(sizeof copy, payload);
    // (null past the frame's end; decode refuses fewer than 2 bytes)
    const auto* p =
        static_cast<const uint8_t*>(rte_pktmbuf_read(pkt, wire::kFrameHeaderBytes, len, copy));
    if (p == nullptr || !wire::decode_ack_list(p, len, more)) ++counters_->rx_bad_ack_lists;
  }
  // Any packet from a peer: alive; after an unanswered probe its messages resume now.
  void heard(uint32_t ip, uint64_t now) {
    if (live_.heard(ip, now)) sender_.resume(ip, now);
  }

  NicCounters* counters_;
  PeerRuns peers_;   // before sender_, which keeps a pointer to it
  PeerLiveness live_;  // before sender_, which keeps a pointer to it
  HeldAcks held_;    // before sender_ and receiver_, which keep a pointer to it
  NdpSender sender_;
  NdpReceiver receiver_;
};

}  // namespace nanopu
