// Homa as the NIC terminates it (Homa, SIGCOMM'18; the nanoPU's header,
// docs/wire.md "Homa header"): a sender (unscheduled bytes, grants, SRPT on
// the wire, probes) and a receiver (SRPT grants to `overcommit` senders,
// RESEND, one ACK per message, riding on DATA to the peer when it can,
// exactly-once delivery) behind the Transport
// seam, beside NDP in the same NIC core.
#pragma once

#include <algorithm>

#include "nic/transport/common/transport_params.h"
#include "nic/transport/homa/homa_params.h"
#include "nic/transport/homa/homa_receiver.h"
#include "nic/transport/homa/homa_sender.h"
#include "nic/transport/common/peer_runs.h"
#include "nic/transport/transport.h"

namespace nanopu {

class HomaTransport final : public Transport {
 public:
  HomaTransport(const TransportParams& c, const HomaParams& p, rte_mempool* pool, NicCounters* counters)
      : rtt_(c.rto_ticks, c.rto_max()),
        held_(p.held_acks, p.ack_hold_ticks, counters),
        sender_(c, p, pool, counters, &peers_, &rtt_, &live_, &held_),
        receiver_(c, p, counters, &rtt_, &live_, &held_) {}

  [[nodiscard]] uint8_t protocol() const override { return wire::kIpProtoHoma; }
  void on_data(rte_mbuf* pkt, const wire::FrameHeader& h, size_t payload_bytes, ContextEntry* dst,
               uint64_t now, TransportSink& sink) override {
    if (peers_.heard(h.src_ip, h.homa.incarnation)) sink.peer_restarted(h.src_ip);
    heard(h.src_ip, now);
    if (h.homa.options & wire::kHomaOptCarriesAck)  // an ACK for one of ours rides along
      sender_.on_control(HomaHeldAcks::carried(h), now, sink);
    receiver_.on_data(pkt, h, payload_bytes, dst, now, sink);
  }
  void on_control(rte_mbuf* pkt, const wire::FrameHeader& h, uint64_t now,
                  TransportSink& sink) override {
    rte_pktmbuf_free(pkt);
    heard(h.src_ip, now);
    // BUSY alone comes from a sender about its message to us; every other
    // control packet (the receiver's BUSY is GRANT|BUSY) is for our sender.
    if (h.homa.flags == wire::kHomaBusy) {
      receiver_.on_busy(h, now);
      return;
    }
    const bool restarted = (h.homa.flags & wire::kHomaGone) != 0 && peers_.forget(h.src_ip, h.homa.dst_incarnation);
    sender_.on_control(h, now, sink);  // the refused message's notice first
    if (restarted) sink.peer_restarted(h.src_ip);
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
  // Any packet from a peer: alive; after an unanswered probe its messages resume now.
  void heard(uint32_t ip, uint64_t now) {
    if (live_.heard(ip, now)) sender_.resume(ip, now);
  }

  PeerRuns peers_;  // before sender_, which keeps a pointer to it
  RttEstimator rtt_;     // before sender_ and receiver_, which share it
  PeerLiveness live_;    // the same
  HomaHeldAcks held_;    // the same
  HomaSender sender_;
  HomaReceiver receiver_;
};

}  // namespace nanopu
