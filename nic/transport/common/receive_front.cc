#include "nic/transport/common/receive_front.h"

#include "lib/contract/message.h"
#include "nanopu/app_header.h"

namespace nanopu {

ReceiveFront::ReceiveFront(const TransportParams& p, NicCounters* counters)
    : p_(p),
      counters_(counters),
      buffer_(p.reassembly_slots),
      delivered_(p.remembered_completions, p.remembered_senders, p.completion_memory_ticks,
                 &counters->rx_senders_forgotten, &counters->rx_beyond_id_memory),
      rejected_(p.completion_memory_ticks),
      partition_(PartitionParams{p.reassembly_slots, p.reserved_priority0_slots, p.context_slots,
                                 p.context_packets}) {}

Admission ReceiveFront::settle_rejection(Admission a, const DeliveredId& id, bool beyond, uint64_t now) {
  // Only a nanopu NDP sender hears REJECT (not Homa's, not the prototype's);
  // and one whose id the delivered-id memory has lost may have been
  // delivered already: a rejection would tell its caller "not done".
  if (!rejects_for_load_ || !id.ordered_ids() || beyond) return a == Admission::kRejected ? Admission::kContextQueue : a;
  if (a != Admission::kRejected) {
    if (!rejected_.contains(id, now)) return a;  // not a copy of a rejected one
    return Admission::kRejected;                 // a copy: rejected again, not counted again
  }
  if (rejected_.remember(id, now)) BufferPartition::count_refusal(a, counters_);  // a message, once
  return a;
}

int ReceiveFront::current_slot(uint32_t src_ip, const Fields& f, int* superseded) {
  // No message being reassembled (an RPC load of one-packet messages): no
  // index to look in.
  if (buffer_.used_slots() == 0) return -1;
  const int s = buffer_.find(ReassemblyBuffer::key_of(src_ip, f.buf_ptr, f.tx_msg_id));
  if (s < 0) return -1;
  const InboundMessage& old = buffer_.at(static_cast<uint32_t>(s));
  if (wire::sender_epoch(old.incarnation, old.buf_size_class) == f.epoch) return s;
  // The sender restarted mid-message and reuses the id: its predecessor's
  // packets can never complete. Free them; this one is new.
  abandon(static_cast<uint32_t>(s));
  ++counters_->rx_reassembly_superseded;
  *superseded = s;
  return -1;
}

ArrivalResult ReceiveFront::drop(rte_mbuf* pkt, Arrival kind, int slot, int superseded) {
  rte_pktmbuf_free(pkt);
  return {kind, slot, false, superseded};
}

void ReceiveFront::deliver(uint32_t slot, uint64_t now, TransportSink& sink) {
  InboundMessage& m = buffer_.at(slot);
  rte_mbuf* head = link_packets(m);
  ContextEntry* dst = m.dst;
  --dst->reassembling;  // its packets stay counted until a thread's FIFO takes them
  m.pull_queued = false;  // a queued PULL for a finished message is moot
  const DeliveredId id{m.src_ip,      m.buf_ptr, m.tx_msg_id,
                       m.src_context, m.msg_len, wire::sender_epoch(m.incarnation, m.buf_size_class)};
  const uint32_t core_time = m.core_time;
  buffer_.release(slot, /*keep_packets=*/true);
  hand_over(head, id, core_time, dst, now, sink);
}

void ReceiveFront::abandon(uint32_t slot) {
  InboundMessage& m = buffer_.at(slot);
  if (tap_ != nullptr && m.spin_stream != 0) [[unlikely]]
    tap_->on_abandoned(m);
  m.pull_queued = false;
  --m.dst->reassembling;
  m.dst->packets -= m.npkts;
  buffer_.release(slot, /*keep_packets=*/false);
}

}  // namespace nanopu
