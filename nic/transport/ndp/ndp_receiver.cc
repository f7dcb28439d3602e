#include "nic/transport/ndp/ndp_receiver.h"

#include <algorithm>

#include "lib/contract/message.h"
#include "nanopu/app_header.h"

namespace nanopu {

NdpReceiver::NdpReceiver(const TransportParams& c, const NdpParams& p, NicCounters* counters,
                         TransportPeers<HeldAcks>* peers)
    : p_(p), counters_(counters), held_(&peers->held), front_(c, counters) {
  front_.reject_for_load(true);  // NDP's NACK|REJECT (docs/wire.md, "Rejected for load")
  pull_queue_.reserve(c.reassembly_slots);
  acks_owed_.reserve(c.reassembly_slots);
}

wire::NdpHeader NdpReceiver::ack_bitmap(const InboundMessage& m) {
  const auto highest = static_cast<uint8_t>(63 - __builtin_clzll(m.received));
  wire::NdpHeader c = control_about<wire::NdpHeader>(m, wire::kFlagAck | wire::kFlagPull, highest);
  c.pull_offset = m.pulled;
  c.options = wire::kOptAckBitmap;
  c.acked_bitmap = m.received;
  c.tx_stamp = m.tx_stamp;
  return c;
}

void NdpReceiver::send_ack_bitmap(InboundMessage& m, TransportSink& sink) {
  sink.send_control(m.src_ip, wire::TransportHeader::of(ack_bitmap(m)));
  m.ack_owed = false;
  ++counters_->tx_ack_bitmaps;
}

void NdpReceiver::ack_whole(InboundMessage& m, uint64_t now, TransportSink& sink) {
  // A sender that reads a carried ACK as the whole message's (m.hold_whole):
  // like a one-packet message's, the ACK of the whole waits for a DATA
  // packet to that peer to carry it (docs/wire.md, "Acknowledgements that
  // ride on data"), or leaves, this very bitmap ACK, when its hold runs out.
  if (m.hold_whole && held_ != nullptr && held_->enabled()) {
    held_->hold(m.src_ip, ack_bitmap(m), m.ack_lists, now, sink);
    m.ack_owed = false;
    return;
  }
  send_ack_bitmap(m, sink);
}

wire::NdpHeader NdpReceiver::control_for(const wire::NdpHeader& n, uint8_t flags, uint16_t pull_offset) {
  wire::NdpHeader c = n;  // msg_len, tx_msg_id, buf fields, pkt_offset, runs echoed
  c.flags = flags;
  c.src_context = n.dst_context;
  c.dst_context = n.src_context;
  c.pull_offset = pull_offset;
  c.options = 0;  // options and a carried ACK are DATA's alone
  c.acked_msg_id = c.acked_buf_ptr = 0;
  c.core_time = 0;
  return c;
}

void NdpReceiver::reply_to(const wire::FrameHeader& h, uint8_t flags, uint16_t pull_offset,
                           TransportSink& sink) const {
  sink.send_control(h.src_ip, wire::TransportHeader::of(control_for(h.ndp, flags, pull_offset)));
}

void NdpReceiver::reply(const InboundMessage& m, uint8_t flags, uint8_t pkt_offset,
                        TransportSink& sink) const {
  wire::NdpHeader c = control_about<wire::NdpHeader>(m, flags, pkt_offset);
  c.pull_offset = m.pulled;
  c.tx_stamp = m.tx_stamp;
  sink.send_control(m.src_ip, wire::TransportHeader::of(c));
}

uint16_t NdpReceiver::grant(uint64_t now, uint16_t wanted) {
  const uint64_t interval = p_.pull_interval_ticks;
  if (interval == 0) return wanted;  // unpaced
  if (now > pull_refilled_) {
    pull_budget_ticks_ =
        std::min(kPullBurstPackets * interval, pull_budget_ticks_ + (now - pull_refilled_));
    pull_refilled_ = now;
  }
  const auto n = static_cast<uint16_t>(std::min<uint64_t>(wanted, pull_budget_ticks_ / interval));
  pull_budget_ticks_ -= uint64_t{n} * interval;
  return n;
}

bool NdpReceiver::pull_toward(InboundMessage& m, uint64_t now) {
  const uint16_t want = credit_earned(m);
  if (want <= m.pulled) return true;
  m.pulled = static_cast<uint16_t>(m.pulled + grant(now, static_cast<uint16_t>(want - m.pulled)));
  return m.pulled == want;
}

void NdpReceiver::on_data(rte_mbuf* pkt, const wire::FrameHeader& h, size_t payload_bytes,
                          ContextEntry* dst, uint64_t now, TransportSink& sink) {
  const wire::NdpHeader& n = h.ndp;
  const ArrivalResult r =
      front_.accept(pkt, h.src_ip, n, (n.flags & wire::kFlagChop) != 0, payload_bytes, dst, now);
  if (!refused_.empty() && (r.kind == Arrival::kSingle || r.kind == Arrival::kStored || r.kind == Arrival::kRejected))
    refused_.arrived(h.src_ip, n.tx_msg_id, n.buf_ptr);  // taken, or rejected for good: no longer asked for
  switch (r.kind) {
    case Arrival::kStale:  // GONE: give it up now and forget that run
      reply_to(h, wire::kFlagGone, 0, sink);
      return;
    case Arrival::kDelivered:
      reply_to(h, wire::kFlagAck | wire::kFlagPull, static_cast<uint16_t>(wire::packets_for(n.msg_len)), sink);
      return;
    case Arrival::kChopped: {  // ask for it again at once (NACK|PULL)
      const uint16_t pulled =
          r.slot >= 0 ? front_.at(static_cast<uint32_t>(r.slot)).pulled
                      : std::min<uint16_t>(static_cast<uint16_t>(wire::packets_for(n.msg_len)), p_.rtt_packets);
      reply_to(h, wire::kFlagNack | wire::kFlagPull, std::max<uint16_t>(pulled, n.pkt_offset + 1), sink);
      return;
    }
    case Arrival::kRejected:  // over the context's SLO queue: given up by its sender at once
      reply_to(h, wire::kFlagNack | wire::kFlagReject, 0, sink);
      return;
    case Arrival::kRefused:  // asked for again when there is room (else the sender's timer)
      reply_to(h, wire::kFlagNack, 0, sink);
      if (dst != nullptr && wire::packets_for(n.msg_len) == 1)  // refused_pulls.h: one-packet messages
        (void)refused_.refused({h.src_ip,
                                control_for(n, wire::kFlagNack | wire::kFlagPull, static_cast<uint16_t>(n.pkt_offset + 1)),
                                dst, now, 0, false});
      return;
    case Arrival::kSingle:
      deliver_single(pkt, h, dst, now, sink);
      return;
    case Arrival::kInconsistent:
      return;
    case Arrival::kDuplicate: {
      InboundMessage& m = front_.at(static_cast<uint32_t>(r.slot));
      m.tx_stamp = n.tx_stamp;  // its ACK times this transmission
      reply(m, wire::kFlagAck | wire::kFlagPull, n.pkt_offset, sink);
      return;
    }
    case Arrival::kStored:
      if (r.first) {
        InboundMessage& m = front_.at(static_cast<uint32_t>(r.slot));
        m.pulled = std::min<uint16_t>(m.npkts, p_.rtt_packets);  // the sender's first window
        m.coalesce = p_.coalesce_acks && (n.options & wire::kOptTakesAcks) && n.incarnation != 0;
        m.hold_whole = m.coalesce && (n.options & wire::kOptTakesWholeAcks);
        m.ack_lists = m.hold_whole && (n.options & wire::kOptTakesAckLists);
      }
      on_stored(static_cast<uint32_t>(r.slot), n, now, sink);
      return;
  }
}

void NdpReceiver::on_stored(uint32_t slot, const wire::NdpHeader& n, uint64_t now, TransportSink& sink) {
  InboundMessage& m = front_.at(slot);
  m.tx_stamp = n.tx_stamp;  // the ACK that names this packet echoes it
  // A queued message waits its turn (tick). While any waits, a newcomer
  // queues behind it rather than spend the credit the time since the last
  // poll built up: this poll's packets are taken before its tick serves
  // the queue, and the queue is served oldest first.
  if (credit_earned(m) > m.pulled && !m.pull_queued &&
      (pull_head_ < pull_queue_.size() || !pull_toward(m, now))) {
    m.pull_queued = true;
    pull_queue_.push_back(slot);
    ++counters_->tx_pulls_paced;
  }
  if (m.coalesce) {
    // One ACK for all of this poll's packets of m (tick), or now if m is whole.
    if (!m.ack_owed) {
      m.ack_owed = true;
      acks_owed_.push_back(slot);
    }
    if (m.received_count == m.npkts) ack_whole(m, now, sink);
  } else {
    reply(m, wire::kFlagAck | wire::kFlagPull, n.pkt_offset, sink);
  }
  if (m.received_count == m.npkts) front_.deliver(slot, now, sink);
}

void NdpReceiver::deliver_single(rte_mbuf* pkt, const wire::FrameHeader& h, ContextEntry* dst,
                                 uint64_t now, TransportSink& sink) {
  const wire::NdpHeader& n = h.ndp;
  if (held_ != nullptr && held_->enabled() && (n.options & wire::kOptTakesAcks) && n.incarnation != 0) {
    // A nanopu sender: the reply (or the next message) to it carries the
    // ACK, or it leaves on its own when the hold runs out (held_acks.h).
    held_->hold(h.src_ip, control_for(n, wire::kFlagAck | wire::kFlagPull, 1),
                (n.options & wire::kOptTakesAckLists) != 0, now, sink);
  } else {
    reply_to(h, wire::kFlagAck | wire::kFlagPull, 1, sink);
  }
  front_.hand_over(pkt, DeliveredId::of(h.src_ip, n), n.core_time, dst, now, sink);
}

void NdpReceiver::tick(uint64_t now, TransportSink& sink) {
  // Paced PULLs, oldest first, as far as the bucket's credit goes; a
  // message granted only part of what it wants keeps the head.
  while (pull_head_ < pull_queue_.size()) {
    InboundMessage& m = front_.at(pull_queue_[pull_head_]);
    if (m.used && m.pull_queued) {
      const uint16_t before = m.pulled;
      const bool all = pull_toward(m, now);
      // Credit raised: a PULL says so, or the message's owed ACK|PULL does.
      if (m.pulled != before && !m.ack_owed) reply(m, wire::kFlagPull, 0, sink);
      if (!all) break;
      m.pull_queued = false;
    }
    ++pull_head_;
  }
  if (pull_head_ == pull_queue_.size()) {
    pull_queue_.clear();
    pull_head_ = 0;
  }
  // Coalesced ACKs: one per message that took packets this poll (a slot
  // freed or reused since is skipped, or named with its new state).
  for (const uint32_t slot : acks_owed_) {
    InboundMessage& m = front_.at(slot);
    if (m.used && m.ack_owed) send_ack_bitmap(m, sink);
  }
  acks_owed_.clear();
  if (!refused_.empty()) {
    counters_->tx_pulls_after_refusal += refused_.ask_again(
        now, front_.params().rto_ticks, front_.params().rto_max(),
        [&](const ContextEntry* dst, uint32_t pending) { return front_.admits_one(dst, pending); },
        [&](const RefusedPulls::Entry& e) {
          if (grant(now, 1) == 0) return false;
          sink.send_control(e.src_ip, wire::TransportHeader::of(e.nack_pull));
          return true;
        });
  }
  if (now >= next_sweep_) expire(now);
}

void NdpReceiver::expire(uint64_t now) {
  // Abandoned partial messages (the sender gave up or vanished).
  const uint64_t expiry = front_.params().reassembly_expiry_ticks;
  next_sweep_ = now + expiry / 4 + 1;
  for (uint32_t i = 0; i < front_.capacity(); ++i) {
    InboundMessage& m = front_.at(i);
    if (m.used && now - m.last_tsc > expiry) {
      front_.abandon(i);
      ++counters_->rx_reassembly_expired;
    }
  }
}

}  // namespace nanopu
