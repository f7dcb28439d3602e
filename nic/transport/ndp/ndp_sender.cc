#include "nic/transport/ndp/ndp_sender.h"

#include <algorithm>

#include "nic/transport/common/send_front.h"

namespace nanopu {
namespace {
// Timeouts back off to rto << 6 while no progress is made, and a measured
// round trip may raise the timeout up to the same ceiling: a message is
// still given up within max_timeouts · 64 · rto (completion memory covers it).
constexpr uint32_t kMaxBackoffShift = 6;
}  // namespace

NdpSender::NdpSender(const TransportParams& c, const NdpParams& p, rte_mempool* pool,
                     NicCounters* counters, const PeerRuns* peers, HeldAcks* held)
    : c_(c),
      p_(p),
      pool_(pool),
      counters_(counters),
      buffer_(c.outbound_slots),
      timers_(c.outbound_slots, std::max<uint64_t>(c.rto_ticks / 4, 1), on_timer, this),
      rtt_(c.rto_ticks, c.rto_ticks << kMaxBackoffShift),
      peers_(peers),
      held_(held) {}

void NdpSender::send_message(rte_mbuf* msg, uint64_t now, TransportSink& sink) {
  timer_sink_ = &sink;
  const int s = take_into_slot(buffer_, msg, &next_msg_id_, peers_, counters_, sink);
  if (s < 0) return;
  const auto slot = static_cast<uint32_t>(s);
  OutboundMessage& m = buffer_.at(slot);
  m.credit = p_.rtt_packets;
  m.resent = 0;
  m.first_sent = now;
  pump(slot, sink);
  arm(slot, now);
}

void NdpSender::send_packet(uint32_t slot, uint8_t index, TransportSink& sink) {
  OutboundMessage& m = buffer_.at(slot);
  wire::NdpHeader h;
  h.flags = wire::kFlagData;
  fill_data_fields(h, m, slot, index, c_.incarnation);
  // This host takes ACKs riding on DATA (docs/wire.md); a held ACK for the
  // peer's message to us may ride on this packet.
  h.options = wire::kOptTakesAcks;
  rte_mbuf* clone = packet_for_port(m.pkts[index], pool_, c_.copy_below_bytes);
  if (clone == nullptr) {  // no buffer now: the timer sends it later
    ++counters_->tx_drop_no_mbuf;
    return;
  }
  if (held_ != nullptr) held_->attach(m.dst_ip, h);
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
  const OutboundMessage& m = buffer_.at(slot);
  // The peer's measured timeout, backed off while no progress is made
  // (2x per timeout), never beyond rto << 6.
  const uint64_t rto = rtt_.rto(m.dst_ip) << std::min<uint32_t>(m.timeouts, kMaxBackoffShift);
  timers_.schedule(slot, now + std::min(rto, rtt_.ceiling()));
}

void NdpSender::complete(uint32_t slot) {
  timers_.cancel(slot);
  buffer_.release(slot);
  ++counters_->tx_msgs_completed;
}

bool NdpSender::on_acked(uint32_t slot, uint64_t newly, uint64_t now) {
  OutboundMessage& m = buffer_.at(slot);
  // Karn's rule: only a packet sent once times the round trip. (Packet 0
  // leaves at once; later ones wait for credit, so their time to the ACK
  // is not a round trip.)
  if ((newly & 1) && !(m.resent & 1) && now >= m.first_sent)
    rtt_.sample(m.dst_ip, now - m.first_sent);
  else if ((newly & ~m.resent) != 0)
    rtt_.acked_in_time(m.dst_ip);
  for (uint64_t b = newly; b != 0; b &= b - 1) {
    const int i = __builtin_ctzll(b);
    rte_pktmbuf_free(m.pkts[i]);  // our reference
    m.pkts[i] = nullptr;
  }
  m.acked |= newly;
  m.resend &= ~newly;
  m.timeouts = 0;
  if (m.acked == m.all_mask()) {
    complete(slot);
    return true;
  }
  arm(slot, now);
  return false;
}

void NdpSender::on_control(const wire::FrameHeader& h, uint64_t now, TransportSink& sink) {
  const wire::NdpHeader& n = h.ndp;
  const uint32_t slot = n.buf_ptr;
  if (!names_our_message(buffer_, n, h.src_ip, c_.incarnation) || n.pkt_offset >= buffer_.at(slot).npkts) {
    ++counters_->rx_stale_control;
    return;
  }
  OutboundMessage& m = buffer_.at(slot);
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
    if (newly != 0 && on_acked(slot, newly, now)) return;
  }
  if (n.flags & wire::kFlagNack) {
    ++counters_->rx_nacks;
    const uint64_t bit = 1ull << n.pkt_offset;
    // A NACK|PULL (trimmed packet) grants the resend at once; a bare NACK
    // (receiver out of slots) leaves it to the backed-off timer.
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
  timers_.poll(now);
}

void NdpSender::on_timer(void* self_ptr, uint32_t slot, uint64_t now) {
  auto* self = static_cast<NdpSender*>(self_ptr);
  OutboundMessage& m = self->buffer_.at(slot);
  if (!m.used) return;
  ++self->counters_->tx_timeouts;
  // A message's first timeout says the peer's timeout is too short for new
  // messages too (Karn); its later ones back off this message alone.
  if (m.timeouts == 0) self->rtt_.timed_out(m.dst_ip);
  if (++m.timeouts > self->c_.max_timeouts) {
    give_up_slot(self->buffer_, slot, TxFailureReason::kNoAnswer, self->counters_, *self->timer_sink_);
    return;
  }
  // Everything sent and not acknowledged goes again.
  const uint64_t sent = m.next_new == 64 ? ~0ull : (1ull << m.next_new) - 1;
  m.resend |= sent & ~m.acked;
  // All sent packets acknowledged but the PULL that would let the rest go was
  // lost: probe with the next packet, whose ACK|PULL restores the credit.
  if (m.resend == 0 && m.next_new < m.npkts && m.next_new >= m.credit)
    m.credit = static_cast<uint16_t>(m.next_new + 1);
  self->pump(slot, *self->timer_sink_);
  self->arm(slot, now);
}

}  // namespace nanopu
