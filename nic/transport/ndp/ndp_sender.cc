#include "nic/transport/ndp/ndp_sender.h"

#include <algorithm>

#include "lib/base/nic_buggify.h"
#include "nic/transport/common/send_front.h"

namespace nanopu {

NdpSender::NdpSender(const TransportParams& c, const NdpParams& p, rte_mempool* pool, NicCounters* counters,
                     TransportPeers<HeldAcks>* peers)
    : SenderShell(c, p, pool, counters, peers), stamp_(c.rto_ticks) {}

void NdpSender::start(uint32_t slot, TransportSink& sink) {
  OutboundMessage& m = buffer_.at(slot);
  m.credit = p_.rtt_packets;
  m.resent = 0;
  m.first_sent = now_;
  m.last_progress = now_;
  pump(slot, sink);
  arm(slot, now_);
}

void NdpSender::send_packet(uint32_t slot, uint8_t index, TransportSink& sink) {
  OutboundMessage& m = buffer_.at(slot);
  wire::NdpHeader h;
  h.flags = wire::kFlagData;
  fill_data_fields(h, m, slot, index, c_.incarnation);
  // This host takes ACKs riding on DATA (docs/wire.md); a held ACK for the
  // peer's message to us may ride on this packet.
  h.options = wire::kOptTakesAcks | wire::kOptTakesWholeAcks | wire::kOptTakesAckLists;
  // nic_buggify(): simulation only (lib/base/nic_buggify.h), the pool near empty.
  rte_mbuf* clone = nic_buggify() ? nullptr : packet_for_port(m.pkts[index], pool_, c_.copy_below_bytes, c_.port_takes_kept);
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
    give_up(slot, TxFailureReason::kRefused, sink);
    return;
  }
  if ((n.flags & (wire::kFlagNack | wire::kFlagReject)) == (wire::kFlagNack | wire::kFlagReject)) {
    ++counters_->tx_msgs_rejected;  // rejected for load: its thread retries elsewhere or later
    give_up(slot, TxFailureReason::kRejected, sink);
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

void NdpSender::tick(uint64_t now, TransportSink& sink) { poll_timers(now, sink); }

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

void NdpSender::give_up(uint32_t slot, TxFailureReason why, TransportSink& sink) {
  timers_.cancel(slot);
  give_up_slot(buffer_, slot, why, counters_, sink);
}

void NdpSender::on_timeout(uint32_t slot, OutboundMessage& m, uint64_t now, TransportSink& sink) {
  const PeerLiveness::Retry r = timer_retry(m, now, *live_, *rtt_, counters_);
  if (r == PeerLiveness::Retry::kWait) {
    arm(slot, now);
    return;
  }
  if (r == PeerLiveness::Retry::kProbe) {
    probe(slot, sink);
    arm(slot, now);
    return;
  }
  // The peer answers, but not for this: everything sent and not acknowledged goes again.
  const uint64_t sent = m.next_new == 64 ? ~0ull : (1ull << m.next_new) - 1;
  m.resend |= sent & ~m.acked;
  // All sent packets acknowledged but the PULL that would let the rest go was
  // lost: probe with the next packet, whose ACK|PULL restores the credit.
  if (m.resend == 0 && m.next_new < m.npkts && m.next_new >= m.credit)
    m.credit = static_cast<uint16_t>(m.next_new + 1);
  pump(slot, sink);
  arm(slot, now);
}

}  // namespace nanopu
