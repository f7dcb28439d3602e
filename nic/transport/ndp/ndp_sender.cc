#include "nic/transport/ndp/ndp_sender.h"

#include <algorithm>

#include "nic/transport/common/send_front.h"

namespace nanopu {
NdpSender::NdpSender(const TransportParams& c, const NdpParams& p, rte_mempool* pool,
                     NicCounters* counters, TransportPeers<HeldAcks>* peers)
    : c_(c),
      p_(p),
      pool_(pool),
      counters_(counters),
      buffer_(c.outbound_slots),
      timers_(c.outbound_slots, std::max<uint64_t>(c.rto_ticks / 4, 1), on_timer, this),
      stamp_(c.rto_ticks),
      peers_(&peers->runs),
      held_(&peers->held),
      live_(&peers->live),
      rtt_(&peers->rtt) {}

void NdpSender::send_message(rte_mbuf* msg, uint64_t now, TransportSink& sink) {
  timer_sink_ = &sink;
  now_ = now;
  const int s = take_into_slot(buffer_, msg, ids_, peers_, counters_, sink);
  if (s >= 0) start(static_cast<uint32_t>(s), sink);
}

void NdpSender::start(uint32_t slot, TransportSink& sink) {
  OutboundMessage& m = buffer_.at(slot);
  m.credit = p_.rtt_packets;
  m.resent = 0;
  m.first_sent = now_;
  m.last_progress = now_;
  pump(slot, sink);
  arm(slot, now_);
}

void NdpSender::start_released(TransportSink& sink) {
  ids_.release_ready(
      [&](rte_mbuf* msg, uint16_t id, uint16_t dst_run) { start(take_held(buffer_, msg, id, dst_run), sink); });
}

void NdpSender::send_packet(uint32_t slot, uint8_t index, TransportSink& sink) {
  OutboundMessage& m = buffer_.at(slot);
  wire::NdpHeader h;
  h.flags = wire::kFlagData;
  fill_data_fields(h, m, slot, index, c_.incarnation);
  // This host takes ACKs riding on DATA (docs/wire.md); a held ACK for the
  // peer's message to us may ride on this packet.
  h.options = wire::kOptTakesAcks | wire::kOptTakesWholeAcks | wire::kOptTakesAckLists;
  rte_mbuf* clone = packet_for_port(m.pkts[index], pool_, c_.copy_below_bytes, c_.port_takes_kept);
  if (clone == nullptr) {  // no buffer now: the timer sends it later
    ++counters_->tx_drop_no_mbuf;
    return;
  }
  if (held_ != nullptr) held_->attach(m.dst_ip, h);
  h.tx_stamp = stamp_.at(now_);  // each transmission its own: its ACK times it (send_stamp.h)
  m.last_tx = now_;
  sink.send_data(clone, m.dst_ip, wire::TransportHeader::of(h), wire::segment_payload_bytes(m.msg_len, index));
}

void NdpSender::pump(uint32_t slot, TransportSink& sink) {
  OutboundMessage& m = buffer_.at(slot);
  // Retransmissions first, then new packets, all within PULL credit.
  for (uint8_t i = 0; i < m.npkts && i < m.credit && m.resend != 0; ++i) {
    if (m.resend >> i & 1) {
      m.resend &= ~(1ull << i);
      if (!(m.acked >> i & 1)) {
        send_packet(slot, i, sink);
        m.resent |= 1ull << i;
        ++counters_->tx_retransmits;
      }
    }
  }
  while (m.next_new < m.npkts && m.next_new < m.credit) send_packet(slot, m.next_new++, sink);
}

void NdpSender::arm(uint32_t slot, uint64_t now) {
  timers_.schedule(slot, retransmit_due(*rtt_, *live_, buffer_.at(slot), c_.peer_dead(), now));
}

void NdpSender::complete(uint32_t slot) {
  timers_.cancel(slot);
  buffer_.release(slot);
  ++counters_->tx_msgs_completed;
}

bool NdpSender::on_acked(uint32_t slot, uint64_t newly, uint16_t echo, uint64_t now) {
  OutboundMessage& m = buffer_.at(slot);
  // An ACK that echoes its packet's send stamp times the round trip of the
  // transmission it answers, resent or not (send_stamp.h). Without one (a
  // prototype peer), Karn's rule: only a packet sent once times it. (Packet
  // 0 leaves at once; later ones wait for credit, so their time to the ACK
  // is not a round trip.)
  if (const std::optional<uint64_t> rtt = stamp_.round_trip(echo, m.first_sent, now)) {
    rtt_->sample(m.dst_ip, *rtt);
    ++counters_->tx_rtt_samples_echoed;
  } else if ((newly & 1) && !(m.resent & 1) && now >= m.first_sent)
    rtt_->sample(m.dst_ip, now - m.first_sent);
  else if ((newly & ~m.resent) != 0)
    rtt_->acked_in_time(m.dst_ip);
  for (uint64_t b = newly; b != 0; b &= b - 1) {
    const int i = __builtin_ctzll(b);
    rte_pktmbuf_free(m.pkts[i]);  // our reference
    m.pkts[i] = nullptr;
  }
  m.acked |= newly;
  m.resend &= ~newly;
  m.timeouts = 0;
  m.last_progress = now;
  live_->heard(m.dst_ip, now);  // (the transport's own feed does this for every packet too)
  if (m.acked == m.all_mask()) {
    complete(slot);
    return true;
  }
  arm(slot, now);
  return false;
}

void NdpSender::on_control(const wire::FrameHeader& h, uint64_t now, TransportSink& sink) {
  now_ = now;
  const uint32_t free_before = buffer_.free_slots();
  handle_control(h, now, sink);
  if (ids_.held() != 0 && buffer_.free_slots() > free_before) start_released(sink);  // a window may open
}

void NdpSender::on_carried_ack(const wire::FrameHeader& data, uint64_t now, TransportSink& sink) {
  // The checks on_control makes of HeldAckQueue::carried(data): the slot
  // and id named, our run (the carrier's dst_incarnation, as its sender
  // last heard it), the receiver the message went to.
  const wire::NdpHeader& d = data.ndp;
  const uint32_t slot = d.acked_buf_ptr;
  const uint16_t run = d.dst_incarnation;
  if (slot < buffer_.capacity() && ids_.held() == 0 && static_cast<uint8_t>(run) == static_cast<uint8_t>(c_.incarnation) &&
      (run == 0 || run == c_.incarnation)) {
    OutboundMessage& m = buffer_.at(slot);
    if (m.used && m.npkts == 1 && m.acked == 0 && m.tx_msg_id == d.acked_msg_id && m.dst_ip == data.src_ip) {
      now_ = now;
      ++counters_->rx_acks;
      m.last_progress = now;
      (void)on_acked(slot, 1, /*echo=*/0, now);  // whole: complete
      return;
    }
  }
  on_control(HeldAcks::carried(data), now, sink);
}

void NdpSender::handle_control(const wire::FrameHeader& h, uint64_t now, TransportSink& sink) {
  const wire::NdpHeader& n = h.ndp;
  const uint32_t slot = n.buf_ptr;
  if (!names_our_message(buffer_, n, h.src_ip, c_.incarnation) || n.pkt_offset >= buffer_.at(slot).npkts) {
    ++counters_->rx_stale_control;
    return;
  }
  OutboundMessage& m = buffer_.at(slot);
  m.last_progress = now;  // its receiver answered for it, whatever it said
  if (n.flags & wire::kFlagGone) {  // its receiver is another run now
    ++counters_->tx_msgs_refused;
    timers_.cancel(slot);
    give_up_slot(buffer_, slot, TxFailureReason::kRefused, counters_, sink);
    return;
  }
  if (n.flags & wire::kFlagAck) {
    ++counters_->rx_acks;
    // A bitmap names every packet received (docs/wire.md, kOptAckBitmap);
    // else the ACK is for pkt_offset alone.
    const uint64_t named = (n.options & wire::kOptAckBitmap) ? n.acked_bitmap : 1ull << n.pkt_offset;
    const uint64_t newly = named & m.all_mask() & ~m.acked;
    if (newly != 0 && on_acked(slot, newly, n.tx_stamp, now)) return;
  }
  if (n.flags & wire::kFlagNack) {
    ++counters_->rx_nacks;
    const uint64_t bit = 1ull << n.pkt_offset;
    // A NACK|PULL (a trimmed packet, or one refused for want of room that
    // its receiver now asks for: refused_pulls.h) grants the resend at
    // once; a bare NACK (receiver out of room) leaves it to the timer.
    if (!(m.acked & bit) && (n.flags & wire::kFlagPull)) m.resend |= bit;
  }
  if (n.flags & wire::kFlagPull) {
    ++counters_->rx_pulls;
    m.credit = std::max<uint16_t>(m.credit, n.pull_offset);
  }
  pump(slot, sink);
}

void NdpSender::tick(uint64_t now, TransportSink& sink) {
  timer_sink_ = &sink;
  now_ = now;
  const uint32_t free_before = buffer_.free_slots();
  timers_.poll(now);
  if (ids_.held() != 0 && buffer_.free_slots() > free_before) start_released(sink);  // a give-up may open a window
}

void NdpSender::resume(uint32_t peer_ip, uint64_t now) {
  for (uint32_t slot = 0; slot < buffer_.capacity(); ++slot) {
    OutboundMessage& m = buffer_.at(slot);
    if (!m.used || m.dst_ip != peer_ip) continue;
    m.timeouts = 0;
    timers_.schedule(slot, now);  // at the next tick
  }
}

void NdpSender::probe(uint32_t slot, TransportSink& sink) {
  OutboundMessage& m = buffer_.at(slot);
  const uint64_t sent = m.next_new == 64 ? ~0ull : (1ull << m.next_new) - 1;
  const uint64_t missing = sent & ~m.acked;
  ++counters_->tx_probes;
  if (missing == 0) {  // everything sent was acknowledged: the next packet asks for credit
    if (m.next_new < m.npkts) {
      m.credit = std::max<uint16_t>(m.credit, static_cast<uint16_t>(m.next_new + 1));
      send_packet(slot, m.next_new++, sink);
    }
    return;
  }
  const auto i = static_cast<uint8_t>(__builtin_ctzll(missing));
  send_packet(slot, i, sink);
  m.resent |= 1ull << i;
  ++counters_->tx_retransmits;
}

void NdpSender::on_timer(void* self_ptr, uint32_t slot, uint64_t now) {
  auto* self = static_cast<NdpSender*>(self_ptr);
  OutboundMessage& m = self->buffer_.at(slot);
  if (!m.used) return;
  self->now_ = now;
  TransportSink& sink = *self->timer_sink_;
  // Given up by time: its peer silent for peer_dead (a slow peer is not a
  // dead one), never after a count of timeouts.
  if (give_up_now(*self->live_, m.dst_ip, now, m.last_progress, self->c_.peer_dead())) {
    give_up_slot(self->buffer_, slot, TxFailureReason::kNoAnswer, self->counters_, sink);
    return;
  }
  const PeerLiveness::Retry r = timer_retry(m, now, *self->live_, *self->rtt_, self->counters_);
  if (r == PeerLiveness::Retry::kWait) {
    self->arm(slot, now);
    return;
  }
  if (r == PeerLiveness::Retry::kProbe) {
    self->probe(slot, sink);
    self->arm(slot, now);
    return;
  }
  // The peer answers, but not for this: everything sent and not acknowledged goes again.
  const uint64_t sent = m.next_new == 64 ? ~0ull : (1ull << m.next_new) - 1;
  m.resend |= sent & ~m.acked;
  // All sent packets acknowledged but the PULL that would let the rest go was
  // lost: probe with the next packet, whose ACK|PULL restores the credit.
  if (m.resend == 0 && m.next_new < m.npkts && m.next_new >= m.credit)
    m.credit = static_cast<uint16_t>(m.next_new + 1);
  self->pump(slot, sink);
  self->arm(slot, now);
}

}  // namespace nanopu
