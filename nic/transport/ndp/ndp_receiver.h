// NDP receiver (docs/wire.md "Receiver"): DATA for a new message takes a
// reassembly slot; every DATA is answered by ACK|PULL (credit + 1, the first
// packets of a message being pre-granted rtt_pkts); a trimmed (CHOP) packet
// by NACK|PULL; PULL credit is paced by a token bucket (grant(): a packet
// per MTU serialization time; what it cannot pay yet goes out from the
// pacer's queue at tick()); a message is delivered only when
// complete, once. Out of slots, the prototype dropped silently: here the
// packet is NACKed and counted (NEBULA-style), and the receiver asks for it
// again (NACK|PULL) once its context has room (refused_pulls.h); the
// sender's backed-off timer resends what it does not ask for.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "nanopu/stats.h"
#include "nic/transport/common/receive_front.h"
#include "nic/transport/common/transport_params.h"
#include "nic/transport/common/held_acks.h"
#include "nic/transport/common/transport_peers.h"
#include "nic/transport/ndp/ndp_params.h"
#include "nic/transport/ndp/refused_pulls.h"
#include "nic/transport/transport.h"

namespace nanopu {

class NdpReceiver {
 public:
  // held: where ACKs wait for a DATA packet to carry them (may be null: never held).
  // peers: the transport's (transport_shell.h); the receiver holds its
  // ACKs there for DATA packets to carry.
  NdpReceiver(const TransportParams& c, const NdpParams& p, NicCounters* counters, TransportPeers<HeldAcks>* peers);

  void on_data(rte_mbuf* pkt, const wire::FrameHeader& h, size_t payload_bytes, ContextEntry* dst,
               uint64_t now, TransportSink& sink);
  // Coalesced ACKs owed this poll, paced PULLs, and expiry of abandoned
  // partial messages.
  void tick(uint64_t now, TransportSink& sink);
  [[nodiscard]] uint32_t slots_in_use() const { return front_.slots_in_use(); }
  void set_tap(PacketTap* tap) { front_.set_tap(tap); }
  // Most packets of credit the pacer grants at once (its bucket's depth):
  // a poll that comes this late or later grants a burst of this size.
  static constexpr uint64_t kPullBurstPackets = 16;
  // tick() does nothing before then: the next paced PULL, owed ACKs (now),
  // the next sweep (which runs whether or not a slot is in use).
  [[nodiscard]] uint64_t next_tick_work() const {
    if (!acks_owed_.empty() || !refused_.empty()) return 0;
    return std::min(pull_head_ < pull_queue_.size() ? next_pull_tick() : UINT64_MAX, next_sweep_);
  }

 private:
  void reply(const InboundMessage& m, uint8_t flags, uint8_t pkt_offset, TransportSink& sink) const;
  // The one ACK|PULL naming every packet of m received so far (kOptAckBitmap).
  [[nodiscard]] static wire::NdpHeader ack_bitmap(const InboundMessage& m);
  void send_ack_bitmap(InboundMessage& m, TransportSink& sink);
  // m is whole: its bitmap ACK, held for a DATA packet to carry if holding is on.
  void ack_whole(InboundMessage& m, uint64_t now, TransportSink& sink);
  // The control packet answering DATA header n (contexts swapped, ids and
  // runs echoed, DATA-only fields cleared).
  [[nodiscard]] static wire::NdpHeader control_for(const wire::NdpHeader& n, uint8_t flags,
                                                   uint16_t pull_offset);
  void reply_to(const wire::FrameHeader& h, uint8_t flags, uint16_t pull_offset,
                TransportSink& sink) const;
  // PULL pacing as a token bucket in packets of credit: credit accrues at
  // one packet per pull_interval_ticks (an MTU at --link_gbps) up to
  // kPullBurstPackets, and each packet of credit granted spends one. A
  // poll that comes late grants what the elapsed time allows at once,
  // where one PULL per interval let a slow poll's queue drain a message
  // per poll (docs/wire.md, "NDP behaviour"). Returns the packets of
  // credit, at most `wanted`, granted now.
  [[nodiscard]] uint16_t grant(uint64_t now, uint16_t wanted);
  // The credit m's received packets earn: one more packet per packet in,
  // rtt_packets ahead, never past its last packet.
  [[nodiscard]] uint16_t credit_earned(const InboundMessage& m) const {
    return std::min<uint16_t>(m.npkts, static_cast<uint16_t>(m.received_count + p_.rtt_packets));
  }
  // Raises m's credit toward credit_earned(m) by what the pacer grants.
  // Returns whether m has it all.
  bool pull_toward(InboundMessage& m, uint64_t now);
  // A whole one-packet message: ACKed (or its ACK held for a DATA packet
  // to carry) and handed over.
  void deliver_single(rte_mbuf* pkt, const wire::FrameHeader& h, ContextEntry* dst, uint64_t now,
                      TransportSink& sink);
  // A packet stored in slot: credit, ACK (or a bitmap ACK owed), delivery.
  void on_stored(uint32_t slot, const wire::NdpHeader& n, uint64_t now, TransportSink& sink);
  void expire(uint64_t now);
  // When the bucket next holds a packet of credit.
  [[nodiscard]] uint64_t next_pull_tick() const {
    const uint64_t interval = p_.pull_interval_ticks;
    return pull_budget_ticks_ >= interval ? pull_refilled_
                                          : pull_refilled_ + (interval - pull_budget_ticks_);
  }

  NdpParams p_;
  NicCounters* counters_;
  HeldAcks* held_;
  ReceiveFront front_;
  std::vector<uint32_t> pull_queue_;  // slots waiting for a paced PULL (FIFO)
  std::vector<uint32_t> acks_owed_;   // slots owed a bitmap ACK this poll
  RefusedPulls refused_;              // refused for want of room: asked for again when there is
  size_t pull_head_ = 0;
  uint64_t pull_budget_ticks_ = 0;  // the bucket: pull_interval_ticks per packet of credit
  uint64_t pull_refilled_ = 0;      // when the bucket was last topped up
  uint64_t next_sweep_ = 0;
};

}  // namespace nanopu
