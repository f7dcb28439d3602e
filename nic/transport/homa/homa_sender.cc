#include "nic/transport/homa/homa_sender.h"

#include <algorithm>

#include "nic/transport/common/send_front.h"

namespace nanopu {

HomaSender::HomaSender(const TransportParams& c, const HomaParams& p, rte_mempool* pool,
                       NicCounters* counters, TransportPeers<HomaHeldAcks>* peers)
    : SenderShell(c, p, pool, counters, peers), is_ready_(c.outbound_slots, 0) {
  ready_.reserve(c.outbound_slots);
}

void HomaSender::start(uint32_t slot, TransportSink& sink) {
  const uint64_t now = now_;
  OutboundMessage& m = buffer_.at(slot);
  m.credit = std::min<uint16_t>(m.npkts, p_.rtt_packets());
  m.priority = p_.unscheduled_priority(m.msg_len);
  // Unscheduled: at once (Homa §3.2: a message's first round trip is never
  // spent waiting for permission), as far as the port has room; the rest
  // go as it drains, shortest message first.
  while (m.next_new < m.credit && !port_full()) send_packet(slot, m.next_new++, sink);
  make_ready(slot);
  m.last_sent = now;
  m.first_sent = now;  // until its first answer: a round-trip sample (Karn: if not resent)
  m.last_progress = now;
  arm(slot, now);
}

void HomaSender::send_packet(uint32_t slot, uint8_t index, TransportSink& sink) {
  OutboundMessage& m = buffer_.at(slot);
  wire::HomaHeader h;
  h.flags = wire::kHomaData;
  fill_data_fields(h, m, slot, index, c_.incarnation);
  // What this sender sends unscheduled, so a receiver configured with
  // another rtt_bytes grants from where this sender stops.
  h.grant_offset = static_cast<uint16_t>(
      std::min<uint32_t>(m.msg_len, uint32_t{p_.rtt_packets()} * wire::kSegmentBytes));
  h.grant_prio = m.priority;
  // This host takes ACKs riding on DATA (docs/wire.md); a held ACK for the
  // peer's message, if one matches, rides on this packet.
  h.options = wire::kHomaOptTakesAcks;
  if (held_ != nullptr) held_->attach(m.dst_ip, h);
  rte_mbuf* copy = packet_for_port(m.pkts[index], pool_, c_.copy_below_bytes, c_.port_takes_kept);
  if (copy == nullptr) {  // no buffer now: a RESEND or the timer asks again
    ++counters_->tx_drop_no_mbuf;
    return;
  }
  m.last_tx = now_;
  const size_t payload = wire::segment_payload_bytes(m.msg_len, index);
  ++counters_->tx_homa_packets;
  sink.send_data(copy, m.dst_ip, wire::TransportHeader::of(h, m.priority), payload);
  if (p_.mtu_frame_ticks != 0) {  // the frame's time on the link, preamble, FCS and gap included
    constexpr size_t kOverhead = wire::kFrameHeaderBytes + 24;
    link_idle_ = std::max(link_idle_, now_) +
                 p_.mtu_frame_ticks * (payload + kOverhead) / (wire::kSegmentBytes + kOverhead);
  }
}

uint32_t HomaSender::ready_packets(const OutboundMessage& m) const {
  const uint32_t fresh = m.credit > m.next_new ? m.credit - m.next_new : 0;
  return fresh + static_cast<uint32_t>(__builtin_popcountll(m.resend));
}

uint32_t HomaSender::remaining_bytes(const OutboundMessage& m) const {
  const uint32_t sent = std::min<uint32_t>(m.msg_len, uint32_t{m.next_new} * wire::kSegmentBytes);
  return m.msg_len - sent;
}

void HomaSender::make_ready(uint32_t slot) {
  if (is_ready_[slot] || ready_packets(buffer_.at(slot)) == 0) return;
  is_ready_[slot] = 1;
  ready_.push_back(slot);
}

void HomaSender::send_scheduled(TransportSink& sink) {
  uint32_t budget = p_.tx_packets_per_poll;
  while (budget != 0 && !ready_.empty() && !port_full()) {
    // The ready message with the fewest bytes left to send (a short list:
    // messages holding grants, at most the receivers' overcommitment).
    size_t best = 0;
    for (size_t i = 1; i < ready_.size(); ++i)
      if (remaining_bytes(buffer_.at(ready_[i])) < remaining_bytes(buffer_.at(ready_[best]))) best = i;
    const uint32_t slot = ready_[best];
    OutboundMessage& m = buffer_.at(slot);
    while (budget != 0 && m.resend != 0 && !port_full()) {
      const auto i = static_cast<uint8_t>(__builtin_ctzll(m.resend));
      m.resend &= m.resend - 1;
      send_packet(slot, i, sink);
      m.last_resent = now_;
      m.resent |= 1ull << i;
      ++counters_->tx_retransmits;
      --budget;
    }
    while (budget != 0 && m.next_new < m.credit && !port_full()) {
      send_packet(slot, m.next_new++, sink);
      m.last_sent = now_;
      --budget;
    }
    if (ready_packets(m) == 0) {
      is_ready_[slot] = 0;
      ready_[best] = ready_.back();
      ready_.pop_back();
    }
  }
}

void HomaSender::unschedule(uint32_t slot) {
  timers_.cancel(slot);
  if (is_ready_[slot]) {
    is_ready_[slot] = 0;
    ready_.erase(std::find(ready_.begin(), ready_.end(), slot));
  }
}

void HomaSender::release(uint32_t slot) {
  unschedule(slot);
  buffer_.release(slot);
}

void HomaSender::give_up(uint32_t slot, TxFailureReason why, TransportSink& sink) {
  unschedule(slot);
  give_up_slot(buffer_, slot, why, counters_, sink);  // never in silence
}

void HomaSender::reply_busy(const wire::FrameHeader& f, TransportSink& sink) const {
  wire::HomaHeader c = f.homa;
  c.flags = wire::kHomaBusy;
  c.src_context = f.homa.dst_context;
  c.dst_context = f.homa.src_context;
  ++counters_->tx_busy;
  ++counters_->tx_homa_packets;
  sink.send_control(f.src_ip, wire::TransportHeader::of(c, wire::kHomaControlPriority));
}

void HomaSender::handle_control(const wire::FrameHeader& f, uint64_t now, TransportSink& sink) {
  const wire::HomaHeader& h = f.homa;
  const uint32_t slot = h.buf_ptr;
  if (!names_our_message(buffer_, h, f.src_ip, c_.incarnation)) {
    ++counters_->rx_stale_control;  // late, duplicate, or a RESEND for nothing we hold
    return;
  }
  OutboundMessage& m = buffer_.at(slot);
  m.last_progress = now;
  // Its first answer times the round trip, if its first packet went once (Karn).
  if (m.first_sent != 0 && !(m.resent & 1) && now >= m.first_sent) rtt_->sample(f.src_ip, now - m.first_sent);
  m.first_sent = 0;
  if (h.flags & wire::kHomaGone) {  // its receiver is another run now
    ++counters_->tx_msgs_refused;
    give_up(slot, TxFailureReason::kRefused, sink);
    return;
  }
  if (h.flags & wire::kHomaAck) {
    ++counters_->rx_acks;
    release(slot);
    ++counters_->tx_msgs_completed;
    return;
  }
  m.timeouts = 0;  // the receiver is alive and has this message in mind
  // A bare NACK: no room there, the timer probes again. With RESEND: the
  // packet was trimmed in the network (see below).
  if (h.flags & wire::kHomaNack) ++counters_->rx_nacks;
  if (h.flags & wire::kHomaBusy) ++counters_->rx_busy;
  const auto granted_pkts = static_cast<uint16_t>(
      std::min<size_t>(m.npkts, wire::packets_for(h.grant_offset)));
  if (h.flags & wire::kHomaGrant) {
    ++counters_->rx_grants;
    if (h.grant_prio < wire::kHomaPriorities) m.priority = h.grant_prio;
    m.credit = std::max(m.credit, granted_pkts);
  }
  if (h.flags & wire::kHomaResend) {
    ++counters_->rx_resends;
    if (h.grant_prio < wire::kHomaPriorities) m.priority = h.grant_prio;
    m.credit = std::max(m.credit, granted_pkts);
    // Shorter messages ahead of this one hold more than a poll's worth of
    // the wire, or its newest data left less than half a RESEND timeout ago
    // (it may be queued, not lost): BUSY, so the receiver does not count this
    // as silence, and nothing sent twice that is still on its way.
    uint32_t ahead = 0;
    for (uint32_t other : ready_)
      if (other != slot && remaining_bytes(buffer_.at(other)) < remaining_bytes(m))
        ahead += ready_packets(buffer_.at(other));
    // NACK|RESEND names a trimmed packet: certainly lost, sent again now —
    // unless this message was sent again less than half a RESEND timeout
    // ago: a queue that trims every copy is full, and answering each trim at
    // once keeps it full (congestion collapse, seen through nanopu-switch
    // beside a CPU hog); the receiver's timer asks again later.
    const bool resent_lately = m.last_resent != 0 && now - m.last_resent < p_.resend_ticks / 2;
    const bool trimmed = (h.flags & wire::kHomaNack) != 0;
    // A plain RESEND is the receiver's, paced by its own timer: waiting for
    // it because this sender resent lately would wait forever when that
    // resend was the timer's probe of packet 0, which the receiver answers
    // at once with this RESEND (a BUSY each round, the hole never filled).
    const bool wait = trimmed ? resent_lately
                              : ahead >= p_.tx_packets_per_poll || now - m.last_sent < p_.resend_ticks / 2;
    if (wait) {
      reply_busy(f, sink);
    } else {
      for (uint32_t i = h.pkt_offset; i < granted_pkts; ++i)
        if (i < m.next_new) m.resend |= 1ull << i;
    }
  }
  make_ready(slot);
  arm(slot, now);
  if (!ready_.empty()) send_scheduled(sink);  // granted data leaves now, not at the next tick
}

void HomaSender::tick(uint64_t now, TransportSink& sink) {
  poll_timers(now, sink);
  if (!ready_.empty()) send_scheduled(sink);
}

void HomaSender::on_timeout(uint32_t slot, OutboundMessage& m, uint64_t now, TransportSink& sink) {
  (void)sink;  // what a resend sends goes at the next tick, in SRPT order
  if (is_ready_[slot] && m.next_new < m.credit) {
    // It still has data of its own to send, waiting for this host's port
    // (max_nic_queue_ticks) behind shorter messages: the wait is ours, not
    // the receiver's silence. No probe, no backoff.
    arm(slot, now);
    return;
  }
  const PeerLiveness::Retry r = timer_retry(m, now, *live_, *rtt_, counters_);
  if (r == PeerLiveness::Retry::kWait) {
    arm(slot, now);
    return;
  }
  if (r == PeerLiveness::Retry::kProbe) ++counters_->tx_probes;
  // The receiver said nothing for a whole timeout: the first packet again.
  // A receiver that holds the message answers it (RESEND, GRANT, BUSY, or
  // ACK if it was delivered and the ACK lost); one that never heard of it
  // starts on it and asks for the rest.
  m.resend |= 1;
  make_ready(slot);
  arm(slot, now);
}

}  // namespace nanopu
