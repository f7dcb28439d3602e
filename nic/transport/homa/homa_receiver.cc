#include "nic/transport/homa/homa_receiver.h"

#include <algorithm>

#include "lib/contract/message.h"
#include "nanopu/app_header.h"

namespace nanopu {

HomaReceiver::HomaReceiver(const TransportParams& c, const HomaParams& p, NicCounters* counters,
                           TransportPeers<HomaHeldAcks>* peers)
    : c_(c), p_(p), counters_(counters), rtt_(&peers->rtt), live_(&peers->live), held_(&peers->held),
      front_(c, counters) {
  active_.reserve(c.reassembly_slots);
  order_.reserve(c.reassembly_slots);
  p_.overcommit = std::clamp<uint32_t>(p_.overcommit, 1, kMaxOvercommit);
}

namespace {
void send_homa_control(uint32_t ip, const wire::HomaHeader& c, NicCounters* counters, TransportSink& sink) {
  ++counters->tx_homa_packets;
  sink.send_control(ip, wire::TransportHeader::of(c, wire::kHomaControlPriority));
}
}  // namespace

wire::HomaHeader HomaReceiver::control_header(const InboundMessage& m, uint8_t flags, uint8_t pkt_offset,
                                              uint16_t grant_offset) {
  wire::HomaHeader c = control_about<wire::HomaHeader>(m, flags, pkt_offset);
  c.grant_offset = grant_offset;
  c.grant_prio = m.grant_priority;
  return c;
}

void HomaReceiver::control(const InboundMessage& m, uint8_t flags, uint8_t pkt_offset,
                           uint16_t grant_offset, TransportSink& sink) const {
  send_homa_control(m.src_ip, control_header(m, flags, pkt_offset, grant_offset), counters_, sink);
}

wire::HomaHeader HomaReceiver::reply_header(const wire::FrameHeader& f, uint8_t flags, uint16_t grant_offset) {
  wire::HomaHeader c = f.homa;  // ids, buffer, incarnations, pkt_offset echoed
  c.flags = flags;
  c.src_context = f.homa.dst_context;
  c.dst_context = f.homa.src_context;
  c.grant_offset = grant_offset;
  c.core_time = 0;
  c.options = 0;  // options and a carried ACK are DATA's alone
  c.acked_msg_id = c.acked_buf_ptr = 0;
  return c;
}

void HomaReceiver::reply_to(const wire::FrameHeader& f, uint8_t flags, uint16_t grant_offset,
                            TransportSink& sink) const {
  send_homa_control(f.src_ip, reply_header(f, flags, grant_offset), counters_, sink);
}

void HomaReceiver::ack(uint32_t ip, const wire::HomaHeader& a, bool takes, uint64_t now, TransportSink& sink) {
  if (takes && held_ != nullptr && held_->enabled()) {
    held_->hold(ip, a, false, now, sink);
    return;
  }
  send_homa_control(ip, a, counters_, sink);
}

void HomaReceiver::on_data(rte_mbuf* pkt, const wire::FrameHeader& f, size_t payload_bytes,
                           ContextEntry* dst, uint64_t now, TransportSink& sink) {
  const wire::HomaHeader& h = f.homa;
  const ArrivalResult r =
      front_.accept(pkt, f.src_ip, h, (h.flags & wire::kHomaChop) != 0, payload_bytes, dst, now);
  if (r.superseded >= 0) forget_active(static_cast<uint32_t>(r.superseded));
  const auto resend_this = static_cast<uint16_t>(
      std::min<uint32_t>(h.msg_len, (h.pkt_offset + 1u) * wire::kSegmentBytes));
  switch (r.kind) {
    case Arrival::kStale:
      reply_to(f, wire::kHomaGone, 0, sink);
      return;
    case Arrival::kDelivered:  // delivered, its ACK lost: the ACK again
      reply_to(f, wire::kHomaAck, h.msg_len, sink);
      return;
    case Arrival::kChopped:  // trimmed in the network: that packet again, now
      ++counters_->tx_resends;
      if (r.slot < 0) {
        reply_to(f, wire::kHomaResend | wire::kHomaNack, resend_this, sink);
      } else {
        InboundMessage& m = front_.at(static_cast<uint32_t>(r.slot));
        m.last_tsc = now;
        m.heard_tsc = now;
        m.resends = 0;
        control(m, wire::kHomaResend | wire::kHomaNack, h.pkt_offset, resend_this, sink);
      }
      return;
    case Arrival::kRejected:  // never: the front NACKs Homa's over-SLO messages as a full context's
    case Arrival::kRefused:
      reply_to(f, wire::kHomaNack, 0, sink);
      return;
    case Arrival::kSingle:  // complete on arrival: one ACK, held for a reply to carry if it may
      ack(f.src_ip, reply_header(f, wire::kHomaAck, h.msg_len), takes_acks(h), now, sink);
      front_.hand_over(pkt, DeliveredId::of(f.src_ip, h), h.core_time, dst, now, sink);
      return;
    case Arrival::kInconsistent:
      return;
    case Arrival::kDuplicate: {
      InboundMessage& m = front_.at(static_cast<uint32_t>(r.slot));
      m.resends = 0;
      // The sender's probe is its first packet again; any other copy is just
      // a duplicate, and answering each would feed a storm of RESENDs.
      if (h.pkt_offset == 0) answer_probe(m, sink);
      return;
    }
    case Arrival::kStored:
      on_stored(static_cast<uint32_t>(r.slot), h, r.first, now, sink);
      return;
  }
}

void HomaReceiver::on_stored(uint32_t slot, const wire::HomaHeader& h, bool first, uint64_t now,
                             TransportSink& sink) {
  InboundMessage& m = front_.at(slot);
  m.resends = 0;
  if (first) {
    // What the sender sends unasked (it says so in every DATA packet).
    m.unscheduled = static_cast<uint8_t>(std::clamp<size_t>(
        wire::packets_for(std::min(h.grant_offset, h.msg_len)), 1, m.npkts));
    m.pulled = std::max<uint16_t>(m.unscheduled, h.pkt_offset + 1);
    m.grant_priority = h.grant_prio < wire::kHomaPriorities ? h.grant_prio : 0;
    m.hold_whole = takes_acks(h);
    active_.push_back(slot);
  }
  if (h.pkt_offset >= m.pulled) m.pulled = h.pkt_offset + 1;  // sent on an older run's grant
  if (m.received_count == m.npkts) {
    ack(m.src_ip, control_header(m, wire::kHomaAck, 0, m.msg_len), m.hold_whole, now, sink);
    deliver(slot, now, sink);
    return;
  }
  if (m.pulled < m.npkts) schedule_grants(sink);
}

void HomaReceiver::schedule_grants(TransportSink& sink) {
  // Messages still to be granted, fewest packets left first (ties: fewer
  // packets in all, then the older slot), one per sender (§3.3: a sender
  // can send one message at a time at full speed).
  order_.clear();
  GrantHolders holders;
  for (uint32_t s : active_) {
    const InboundMessage& m = front_.at(s);
    if (holds_scheduled_grant(m) && !holders.holds(m.src_ip) && holders.n < kMaxOvercommit)
      holders.ips[holders.n++] = m.src_ip;
    if (m.pulled < m.npkts) order_.push_back(s);
  }
  counters_->rx_granted_senders_peak = std::max<uint64_t>(counters_->rx_granted_senders_peak, holders.n);
  if (order_.empty()) return;
  if (p_.fifo_grant_every != 0 && grants_since_fifo_ >= p_.fifo_grant_every) fifo_grant(holders, sink);
  std::sort(order_.begin(), order_.end(), [this](uint32_t a, uint32_t b) {
    const InboundMessage& x = front_.at(a);
    const InboundMessage& y = front_.at(b);
    const int lx = x.npkts - x.received_count, ly = y.npkts - y.received_count;
    return lx != ly ? lx < ly : (x.npkts != y.npkts ? x.npkts < y.npkts : a < b);
  });
  srpt_grants(holders, sink);
  counters_->rx_granted_senders_peak = std::max<uint64_t>(counters_->rx_granted_senders_peak, holders.n);
}

void HomaReceiver::fifo_grant(const GrantHolders& holders, TransportSink& sink) {
  // The oldest message waiting for a grant gets one now, SRPT or not, and
  // beyond the bound if need be (as HomaModule's FIFO grants): so at most
  // `overcommit` senders hold SRPT grants, plus this one.
  for (uint32_t s : active_) {
    InboundMessage& m = front_.at(s);
    if (m.pulled >= m.npkts || m.received_count < m.pulled || !core_free(m.dst)) continue;
    // One sender beyond the bound at most: while an earlier FIFO grant is
    // still out (holders past overcommit), a new sender waits.
    if (!holders.holds(m.src_ip) && holders.n > p_.overcommit) continue;
    m.pulled = static_cast<uint16_t>(std::min<uint32_t>(m.npkts, m.received_count + p_.rtt_packets()));
    m.grant_priority = 0;
    m.granted = true;
    ++counters_->tx_grants;
    control(m, wire::kHomaGrant, 0, granted_bytes(m), sink);
    grants_since_fifo_ = 0;
    return;
  }
}

void HomaReceiver::srpt_grants(GrantHolders& holders, TransportSink& sink) {
  uint32_t picked_ips[kMaxOvercommit];
  uint32_t picked = 0;
  held_for_core_ = false;
  for (uint32_t s : order_) {
    InboundMessage& m = front_.at(s);
    if (std::find(picked_ips, picked_ips + picked, m.src_ip) != picked_ips + picked) continue;
    const bool holds = holders.holds(m.src_ip);
    // The bound: a sender that holds no grant yet gets one only while fewer
    // than `overcommit` senders hold one (§3.4, overcommitment).
    if (picked == p_.overcommit) break;
    if (!holds && holders.n >= p_.overcommit) continue;  // >=: a FIFO grant may be out too
    picked_ips[picked] = m.src_ip;
    const auto rank = static_cast<uint8_t>(std::min<uint32_t>(picked, p_.max_sched_priority));
    ++picked;
    if (!core_free(m.dst)) {  // no core to run it on: don't pull more of it in yet
      held_for_core_ = true;
      ++counters_->rx_grants_held_for_core;
      if (m.received_count == m.pulled) {  // it has all it was granted: keep its sender waiting
        ++counters_->tx_busy;
        control(m, wire::kHomaGrant | wire::kHomaBusy, 0, granted_bytes(m), sink);
      }
      continue;
    }
    const auto want = static_cast<uint16_t>(std::min<uint32_t>(m.npkts, m.received_count + p_.rtt_packets()));
    const auto prio = static_cast<uint8_t>(p_.max_sched_priority - rank);
    if (want <= m.pulled && prio == m.grant_priority) continue;
    if (!holds) holders.ips[holders.n++] = m.src_ip;
    m.pulled = std::max(m.pulled, want);
    m.grant_priority = prio;
    m.granted = true;
    ++counters_->tx_grants;
    ++grants_since_fifo_;
    control(m, wire::kHomaGrant, 0, granted_bytes(m), sink);
  }
}

bool HomaReceiver::ask_again(InboundMessage& m, TransportSink& sink) {
  const uint64_t granted = m.pulled >= 64 ? ~0ull : (1ull << m.pulled) - 1;
  const uint64_t missing = granted & ~m.received;
  if (missing == 0) return false;
  const auto first = static_cast<uint8_t>(__builtin_ctzll(missing));
  // The run of missing packets from `first` (RESEND names a byte range).
  const uint64_t from_first = missing >> first;
  const uint32_t run = from_first == ~0ull ? 64 : static_cast<uint32_t>(__builtin_ctzll(~from_first));
  const uint32_t end = std::min<uint32_t>(m.msg_len, (first + run) * static_cast<uint32_t>(wire::kSegmentBytes));
  ++counters_->tx_resends;
  control(m, wire::kHomaResend, first, static_cast<uint16_t>(end), sink);
  return true;
}

void HomaReceiver::answer_probe(InboundMessage& m, TransportSink& sink) {
  if (ask_again(m, sink)) return;  // a gap in what was granted: ask for it
  if (m.pulled > m.received_count || m.pulled == m.npkts) {
    control(m, wire::kHomaGrant, 0, granted_bytes(m), sink);  // the grant again (lost?)
    ++counters_->tx_grants;
    return;
  }
  // Everything granted is in, and it waits its turn (SRPT, overcommitment
  // or no free core): alive, wait.
  ++counters_->tx_busy;
  control(m, wire::kHomaGrant | wire::kHomaBusy, 0, granted_bytes(m), sink);
}

void HomaReceiver::on_busy(const wire::FrameHeader& f, uint64_t now) {
  const int s = front_.find(f.src_ip, f.homa.buf_ptr, f.homa.tx_msg_id);
  if (s < 0) {
    ++counters_->rx_stale_control;
    return;
  }
  ++counters_->rx_busy;
  InboundMessage& m = front_.at(static_cast<uint32_t>(s));
  m.last_tsc = now;  // alive, and sending other things first: not silence
  m.heard_tsc = now;
  m.resends = 0;
}

void HomaReceiver::deliver(uint32_t slot, uint64_t now, TransportSink& sink) {
  forget_active(slot);
  front_.deliver(slot, now, sink);
  // A slot fewer: the next message may be granted now.
  if (!active_.empty()) schedule_grants(sink);
}

void HomaReceiver::abandon(uint32_t slot) {
  forget_active(slot);
  front_.abandon(slot);
}

uint64_t HomaReceiver::resend_wait(const InboundMessage& m) const {
  // Each unanswered RESEND doubles the wait for the next, up to rto_max: a
  // sender on a busy CPU or behind a long queue is slow, not gone.
  const uint64_t base = std::max(p_.resend_ticks, rtt_->rto(m.src_ip) / 2);
  const uint64_t ceiling = std::max(c_.rto_max(), base << 6);  // rto_max, or as before without one
  const uint32_t shift = std::min<uint32_t>(m.resends, 20);
  return base > (ceiling >> shift) ? ceiling : base << shift;
}

void HomaReceiver::tick(uint64_t now, TransportSink& sink) {
  if (held_for_core_) schedule_grants(sink);
  if (active_.empty() || now < next_sweep_) return;
  next_sweep_ = now + p_.resend_ticks / 4 + 1;
  for (size_t i = 0; i < active_.size();) {
    const uint32_t slot = active_[i];
    InboundMessage& m = front_.at(slot);
    const bool silent = now - m.last_tsc > resend_wait(m);
    if (silent && m.received_count < m.pulled) {
      const uint64_t heard = std::max(live_->last_heard(m.src_ip), m.heard_tsc);
      if (m.resends != 0 && now - heard >= c_.peer_dead()) {
        // The sender has said nothing for peer_dead: drop what we have. A
        // live sender's probe starts it over; a dead one's message is given
        // up and reported at the sender.
        ++counters_->rx_msgs_aborted;
        abandon(slot);  // active_[i] is now another slot
        continue;
      }
      ++m.resends;
      m.last_tsc = now;
      (void)ask_again(m, sink);
    } else if (now - m.last_tsc > front_.params().reassembly_expiry_ticks) {
      ++counters_->rx_reassembly_expired;  // waited for grants, its sender long gone
      abandon(slot);
      continue;
    }
    ++i;
  }
}

}  // namespace nanopu
