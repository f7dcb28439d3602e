#include "nic/transport/ndp/ndp_receiver.h"

#include <algorithm>

#include "lib/contract/message.h"
#include "nanopu/app_header.h"

namespace nanopu {

NdpReceiver::NdpReceiver(const NdpParams& p, NicCounters* counters, HeldAcks* held)
    : p_(p),
      counters_(counters),
      held_(held),
      buffer_(p.reassembly_slots),
      delivered_(p.remembered_completions, p.remembered_senders, p.completion_memory_ticks,
                 &counters->rx_senders_forgotten),
      partition_(PartitionParams{p.reassembly_slots, p.reserved_priority0_slots, p.context_slots,
                                 p.context_packets}) {
  pull_queue_.reserve(p.reassembly_slots);
  acks_owed_.reserve(p.reassembly_slots);
}

void NdpReceiver::send_ack_bitmap(InboundMessage& m, TransportSink& sink) {
  const auto highest = static_cast<uint8_t>(63 - __builtin_clzll(m.received));
  wire::NdpHeader c = control_about<wire::NdpHeader>(m, wire::kFlagAck | wire::kFlagPull, highest);
  c.pull_offset = m.pulled;
  c.options = wire::kOptAckBitmap;
  c.acked_bitmap = m.received;
  sink.send_control(m.src_ip, c);
  m.ack_owed = false;
  ++counters_->tx_ack_bitmaps;
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
  sink.send_control(h.src_ip, control_for(h.ndp, flags, pull_offset));
}

void NdpReceiver::reply(const InboundMessage& m, uint8_t flags, uint8_t pkt_offset,
                        TransportSink& sink) const {
  wire::NdpHeader c = control_about<wire::NdpHeader>(m, flags, pkt_offset);
  c.pull_offset = m.pulled;
  sink.send_control(m.src_ip, c);
}

bool NdpReceiver::pull_allowed(uint64_t now) {
  if (now < next_pull_) return false;
  next_pull_ = std::max(now, next_pull_) + p_.pull_interval_ticks;
  return true;
}

void NdpReceiver::on_data(rte_mbuf* pkt, const wire::FrameHeader& h, size_t payload_bytes,
                          ContextEntry* dst, uint64_t now, TransportSink& sink) {
  const wire::NdpHeader& n = h.ndp;
  if (n.dst_incarnation != 0 && n.dst_incarnation != p_.incarnation) {
    // Meant for this address's previous process (a reply to its request, or
    // a request it may already have served): not ours to take. GONE tells
    // the sender to give it up now and to forget that run.
    ++counters_->rx_drop_stale_incarnation;
    rte_pktmbuf_free(pkt);
    reply_to(h, wire::kFlagGone, 0, sink);
    return;
  }
  const uint64_t key = ReassemblyBuffer::key_of(h.src_ip, n.buf_ptr, n.tx_msg_id);
  int s = buffer_.find(key);
  if (s >= 0) {
    InboundMessage& old = buffer_.at(static_cast<uint32_t>(s));
    if (wire::sender_epoch(old.incarnation, old.buf_size_class) != wire::sender_epoch(n)) {
      // The sender restarted mid-message and reuses the id: its
      // predecessor's packets can never complete. Free them; this is new.
      abandon(static_cast<uint32_t>(s));
      ++counters_->rx_reassembly_superseded;
      s = -1;
    }
  }
  if (s < 0 && delivered_.seen(DeliveredId::of(h.src_ip, n), now)) {
    // A retransmission of a message already delivered (its ACK was lost).
    ++counters_->rx_dup_packets;
    rte_pktmbuf_free(pkt);
    reply_to(h, wire::kFlagAck | wire::kFlagPull, static_cast<uint16_t>(wire::packets_for(n.msg_len)), sink);
    return;
  }
  if (n.flags & wire::kFlagChop) {
    // Trimmed in the network: ask for it again at once (NACK|PULL).
    ++counters_->rx_chopped_packets;
    rte_pktmbuf_free(pkt);
    const uint16_t pulled = s >= 0 ? buffer_.at(static_cast<uint32_t>(s)).pulled
                                   : std::min<uint16_t>(static_cast<uint16_t>(wire::packets_for(n.msg_len)), p_.rtt_packets);
    reply_to(h, wire::kFlagNack | wire::kFlagPull, std::max<uint16_t>(pulled, n.pkt_offset + 1), sink);
    return;
  }
  if (s < 0) {
    // A new message: admit it only within its context's share (see
    // buffer_partition.h); otherwise NACK so the sender retries later.
    const auto npkts = static_cast<uint32_t>(wire::packets_for(n.msg_len));
    const Admission a = partition_.admit(dst, npkts, buffer_.used_slots(), p_.workers);
    if (a == Admission::kAdmit && npkts == 1) {
      // A single-packet message is complete on arrival: no reassembly slot
      // or index entry (the common RPC case), same ACK and accounting.
      ++dst->packets;
      deliver_single(pkt, h, payload_bytes, dst, now, sink);
      return;
    }
    if (a != Admission::kAdmit || (s = buffer_.allocate(key)) < 0) {
      BufferPartition::count_refusal(a, counters_);
      rte_pktmbuf_free(pkt);
      reply_to(h, wire::kFlagNack, 0, sink);
      return;
    }
    ++dst->reassembling;
    dst->packets += npkts;
    InboundMessage& m = buffer_.at(static_cast<uint32_t>(s));
    take_identity(m, h.src_ip, n, dst);
    m.pulled = std::min<uint16_t>(m.npkts, p_.rtt_packets);  // the sender's first window
    m.coalesce = p_.coalesce_acks && (n.options & wire::kOptTakesAcks) && n.incarnation != 0;
  }
  const auto slot = static_cast<uint32_t>(s);
  InboundMessage& m = buffer_.at(slot);
  m.last_tsc = now;
  if (m.msg_len != n.msg_len || m.src_context != n.src_context) {  // inconsistent: drop
    rte_pktmbuf_free(pkt);
    ++counters_->rx_parse_errors[static_cast<size_t>(wire::ParseError::kBadLength)];
    return;
  }
  const uint64_t bit = 1ull << n.pkt_offset;
  if (m.received & bit) {
    ++counters_->rx_dup_packets;
    rte_pktmbuf_free(pkt);
    reply(m, wire::kFlagAck | wire::kFlagPull, n.pkt_offset, sink);
    return;
  }
  strip_to_payload(pkt, payload_bytes);
  m.pkts[n.pkt_offset] = pkt;
  m.received |= bit;
  ++m.received_count;

  // One more packet in: one more packet of credit, paced.
  const uint16_t want = std::min<uint16_t>(m.npkts, m.received_count + p_.rtt_packets);
  if (want > m.pulled) {
    if (pull_allowed(now)) {
      m.pulled = want;
    } else if (!m.pull_queued) {
      m.pull_queued = true;
      pull_queue_.push_back(slot);
      ++counters_->tx_pulls_paced;
    }
  }
  if (m.coalesce) {
    // One ACK for all of this poll's packets of m (tick), or now if m is whole.
    if (!m.ack_owed) {
      m.ack_owed = true;
      acks_owed_.push_back(slot);
    }
    if (m.received_count == m.npkts) send_ack_bitmap(m, sink);
  } else {
    reply(m, wire::kFlagAck | wire::kFlagPull, n.pkt_offset, sink);
  }
  if (m.received_count == m.npkts) deliver(slot, now, sink);
}

void NdpReceiver::deliver(uint32_t slot, uint64_t now, TransportSink& sink) {
  InboundMessage& m = buffer_.at(slot);
  rte_mbuf* head = link_packets(m);
  ContextEntry* dst = m.dst;
  --dst->reassembling;  // its packets stay counted until a thread's FIFO takes them
  m.pull_queued = false;  // a queued PULL for a finished message is moot
  const DeliveredId id{m.src_ip,      m.buf_ptr, m.tx_msg_id,
                       m.src_context, m.msg_len, wire::sender_epoch(m.incarnation, m.buf_size_class)};
  hand_over(head, id, m.core_time, dst, now, sink);
  buffer_.release(slot, /*keep_packets=*/true);
}

void NdpReceiver::deliver_single(rte_mbuf* pkt, const wire::FrameHeader& h, size_t payload_bytes,
                                 ContextEntry* dst, uint64_t now, TransportSink& sink) {
  const wire::NdpHeader& n = h.ndp;
  strip_to_payload(pkt, payload_bytes);
  if (held_ != nullptr && held_->enabled() && (n.options & wire::kOptTakesAcks) && n.incarnation != 0) {
    // A nanopu sender: the reply (or the next message) to it carries the
    // ACK, or it leaves on its own when the hold runs out (held_acks.h).
    held_->hold(h.src_ip, control_for(n, wire::kFlagAck | wire::kFlagPull, 1), now, sink);
  } else {
    reply_to(h, wire::kFlagAck | wire::kFlagPull, 1, sink);
  }
  hand_over(pkt, DeliveredId::of(h.src_ip, n), n.core_time, dst, now, sink);
}

void NdpReceiver::hand_over(rte_mbuf* head, const DeliveredId& id, uint32_t core_time,
                            ContextEntry* dst, uint64_t now, TransportSink& sink) {
  MsgMeta* meta = msg_meta(head);
  meta->app_header = AppHeader{id.src_ip, id.src_context, id.msg_len}.word();
  meta->nic_tsc = now;
  meta->core_time = core_time;
  delivered_.remember(id, now);
  (void)sink.deliver(head, dst);
}

void NdpReceiver::abandon(uint32_t slot) {
  InboundMessage& m = buffer_.at(slot);
  m.pull_queued = false;
  --m.dst->reassembling;
  m.dst->packets -= m.npkts;
  buffer_.release(slot, /*keep_packets=*/false);
}

void NdpReceiver::tick(uint64_t now, TransportSink& sink) {
  // Paced PULLs, oldest first.
  while (pull_head_ < pull_queue_.size() && pull_allowed(now)) {
    const uint32_t slot = pull_queue_[pull_head_++];
    InboundMessage& m = buffer_.at(slot);
    if (!m.used || !m.pull_queued) continue;
    m.pull_queued = false;
    m.pulled = std::min<uint16_t>(m.npkts, m.received_count + p_.rtt_packets);
    if (!m.ack_owed) reply(m, wire::kFlagPull, 0, sink);  // else its owed ACK|PULL carries it
  }
  if (pull_head_ == pull_queue_.size()) {
    pull_queue_.clear();
    pull_head_ = 0;
  }
  // Coalesced ACKs: one per message that took packets this poll (a slot
  // freed or reused since is skipped, or named with its new state).
  for (const uint32_t slot : acks_owed_) {
    InboundMessage& m = buffer_.at(slot);
    if (m.used && m.ack_owed) send_ack_bitmap(m, sink);
  }
  acks_owed_.clear();
  // Abandoned partial messages (the sender gave up or vanished).
  if (now >= next_sweep_) {
    next_sweep_ = now + p_.reassembly_expiry_ticks / 4 + 1;
    for (uint32_t i = 0; i < buffer_.capacity(); ++i) {
      InboundMessage& m = buffer_.at(i);
      if (m.used && now - m.last_tsc > p_.reassembly_expiry_ticks) {
        abandon(i);
        ++counters_->rx_reassembly_expired;
      }
    }
  }
}

}  // namespace nanopu
