#include "nic/transport/common/held_acks.h"

#include <algorithm>
#include <bit>

namespace nanopu {

template <typename Header>
HeldAckQueue<Header>::HeldAckQueue(uint32_t capacity, uint64_t hold_ticks, NicCounters* counters)
    : ring_(std::bit_ceil(std::max<uint32_t>(capacity, 1))),
      mask_(ring_.size() - 1),
      hold_ticks_(hold_ticks),
      counters_(counters) {}

template <typename Header>
void HeldAckQueue<Header>::skip_taken() {
  while (head_ != tail_ && at(head_).taken) ++head_;
}

template <typename Header>
void HeldAckQueue<Header>::gather_list(const Entry& head, wire::AckList* list) {
  const uint64_t end = std::min(tail_, head_ + kListScan);
  for (uint64_t i = head_; i < end && !list->full(); ++i) {
    Entry& e = at(i);
    if (!e.lists ||
        !open_for(e, head.ip, head.ack.src_context, head.ack.dst_context, head.ack.incarnation) ||
        e.ack.buf_size_class != head.ack.buf_size_class ||
        e.ack.dst_incarnation != head.ack.dst_incarnation)
      continue;
    list->add({e.ack.tx_msg_id, e.ack.buf_ptr});
    e.taken = true;
  }
}

namespace {
// An NDP ACK `first` and the messages `more` lists (lib/wire/ack_list.h):
// one control packet, the list in its payload (wire::kOptAckList), where
// the sink frames payloads; else the same ACKs as packets of their own.
void send_listed(uint32_t ip, const wire::NdpHeader& first, const wire::AckList& more, TransportSink& sink) {
  if (!sink.frames_payloads()) {
    sink.send_control(ip, wire::TransportHeader::of(first));
    for (uint8_t i = 0; i < more.count; ++i)
      sink.send_control(ip, wire::TransportHeader::of(wire::listed_ack(first, more.msgs[i])));
    return;
  }
  wire::NdpHeader h = first;
  h.options |= wire::kOptAckList;
  wire::ControlPayload payload;
  wire::encode_ack_list(more, payload.data());
  sink.send_control_with(ip, wire::TransportHeader::of(h), payload);
}
}  // namespace

template <typename Header>
void HeldAckQueue<Header>::send_head(TransportSink& sink) {
  const Entry& e = at(head_++);
  ++counters_->tx_acks_held_expired;
  if constexpr (kNdp) {
    wire::AckList list;
    if (e.lists) gather_list(e, &list);
    if (list.empty()) {
      sink.send_control(e.ip, wire::TransportHeader::of(e.ack));
      return;
    }
    counters_->tx_acks_listed += list.count;
    send_listed(e.ip, e.ack, list, sink);
  } else {
    ++counters_->tx_homa_packets;
    sink.send_control(e.ip, wire::TransportHeader::of(e.ack, wire::kHomaControlPriority));
  }
}

template <typename Header>
void HeldAckQueue<Header>::hold(uint32_t ip, const Header& ack, bool lists, uint64_t now, TransportSink& sink) {
  if (size() == ring_.size()) {
    send_head(sink);
    skip_taken();
  }
  Entry& e = at(tail_++);
  e.ip = ip;
  e.taken = false;
  e.lists = lists;
  e.deadline = now + hold_ticks_;
  e.ack = ack;
}

template <typename Header>
bool HeldAckQueue<Header>::attach(uint32_t ip, Header& h) {
  if (h.dst_incarnation == 0) return false;  // a run we cannot name: it could not check the ACK
  const uint64_t end = std::min(tail_, head_ + kMatchScan);
  for (uint64_t i = head_; i < end; ++i) {
    Entry& e = at(i);
    if (!open_for(e, ip, h.src_context, h.dst_context, h.dst_incarnation)) continue;
    if constexpr (kNdp)
      h.options |= wire::kOptCarriesAck;
    else
      h.options |= wire::kHomaOptCarriesAck;
    h.acked_msg_id = e.ack.tx_msg_id;
    h.acked_buf_ptr = e.ack.buf_ptr;
    e.taken = true;
    skip_taken();
    ++counters_->tx_acks_on_data;
    return true;
  }
  return false;
}

template <typename Header>
void HeldAckQueue<Header>::expire(uint64_t now, TransportSink& sink) {
  while (head_ != tail_ && at(head_).deadline <= now) {
    send_head(sink);
    skip_taken();
  }
}

template <typename Header>
uint64_t HeldAckQueue<Header>::next_deadline() const {
  return head_ == tail_ ? UINT64_MAX : at(head_).deadline;
}

template <typename Header>
wire::FrameHeader HeldAckQueue<Header>::carried(const wire::FrameHeader& data) {
  // An ACK of the whole message (only a whole one is held: one packet, or
  // every packet of a longer one), contexts of the message (the reverse of
  // this packet's), ids and runs echoed: the runs are the carrier's, seen
  // from the other side.
  wire::FrameHeader c = data;
  if constexpr (kNdp) {
    // A bitmap naming every packet (the sender takes the bits its message
    // has): what a list's entry stands for (wire::listed_ack).
    wire::NdpHeader& a = c.ndp;
    a.incarnation = data.ndp.dst_incarnation;
    a.buf_size_class = static_cast<uint8_t>(data.ndp.dst_incarnation);
    a.dst_incarnation = data.ndp.incarnation;
    a = wire::listed_ack(a, {data.ndp.acked_msg_id, data.ndp.acked_buf_ptr});
  } else {
    // As the receiver's ACK would have been (HomaReceiver::reply_header).
    wire::HomaHeader& a = c.homa;
    a.flags = wire::kHomaAck;
    a.incarnation = data.homa.dst_incarnation;
    a.buf_size_class = static_cast<uint8_t>(data.homa.dst_incarnation);
    a.dst_incarnation = data.homa.incarnation;
    a.tx_msg_id = data.homa.acked_msg_id;
    a.buf_ptr = data.homa.acked_buf_ptr;
    a.pkt_offset = 0;
    a.core_time = 0;
    a.options = 0;
    a.acked_msg_id = a.acked_buf_ptr = 0;
  }
  return c;
}

template class HeldAckQueue<wire::NdpHeader>;
template class HeldAckQueue<wire::HomaHeader>;

}  // namespace nanopu
