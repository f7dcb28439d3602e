// NDP as the nanoPU terminates it in the NIC (nanoPU §2.3, nanoPU tail-latency version §3.1, §4.2f;
// docs/wire.md): a sender (packetization buffer, PULL credit, ACK/NACK,
// retransmit timers) and a receiver (reassembly buffer, ACK|PULL, NACK,
// paced PULLs, exactly-once delivery) behind the Transport interface.
#pragma once

#include <algorithm>

#include "lib/wire/ack_list.h"
#include "nic/transport/common/held_acks.h"
#include "nic/transport/common/transport_params.h"
#include "nic/transport/common/transport_shell.h"
#include "nic/transport/ndp/ndp_params.h"
#include "nic/transport/ndp/ndp_receiver.h"
#include "nic/transport/ndp/ndp_sender.h"
#include "nic/transport/transport.h"

namespace nanopu {

class NdpTransport final : public TransportShell<NdpSender, NdpReceiver, HeldAcks> {
 public:
  NdpTransport(const TransportParams& c, const NdpParams& p, rte_mempool* pool, NicCounters* counters)
      : TransportShell(c, p, pool, counters) {}

  [[nodiscard]] uint8_t protocol() const override { return wire::kIpProtoNdp; }
  void on_data(rte_mbuf* pkt, const wire::FrameHeader& h, size_t payload_bytes, ContextEntry* dst,
               uint64_t now, TransportSink& sink) override {
    if (peers_.runs.heard(h.src_ip, h.ndp.incarnation)) sink.peer_restarted(h.src_ip);
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
    const bool restarted =
        (h.ndp.flags & wire::kFlagGone) != 0 && peers_.runs.forget(h.src_ip, h.ndp.dst_incarnation);
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
};

}  // namespace nanopu
