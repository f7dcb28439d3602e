// The half of receiving that NDP and Homa share (docs/wire.md, "Receiver",
// "Homa behaviour"): a DATA packet is checked against this host's run, matched
// to the message it belongs to (a restarted sender's unfinished predecessor
// superseded), told apart from a retransmission of a message already
// delivered, admitted within its context's share of the reassembly buffer
// (buffer_partition.h; a one-packet message is complete on arrival and takes
// no slot), and stored in its slot. What to answer each outcome with is the
// protocol's own (its receiver's reply builder): the front end frees the
// packets it does not keep and counts every outcome, and sends nothing.
#pragma once

#include <rte_mbuf.h>

#include <cstdint>

#include "lib/base/nic_buggify.h"
#include "lib/contract/context_table.h"
#include "lib/contract/message.h"
#include "nanopu/app_header.h"
#include "nanopu/stats.h"
#include "nic/reassembly/buffer_partition.h"
#include "nic/reassembly/delivered_ids.h"
#include "nic/reassembly/packet_tap.h"
#include "nic/reassembly/reassembly_buffer.h"
#include "nic/reassembly/rejected_ids.h"
#include "nic/transport/common/transport_params.h"
#include "nic/transport/transport.h"

namespace nanopu {

// What a DATA packet turned out to be (ReceiveFront::accept).
enum class Arrival : uint8_t {
  kStale,         // meant for this address's previous run: answer GONE (freed)
  kDelivered,     // a retransmission of a delivered message (its ACK lost): ACK again (freed)
  kChopped,       // trimmed in the network (freed); slot >= 0 if the message is being received
                  // (and the packet agrees with it)
  kRefused,       // no room for a new message (freed, counted): NACK
  kRejected,      // a new message over its context's SLO queue (freed, counted): NACK|REJECT
  kSingle,        // a whole one-packet message, admitted: the caller delivers it (kept, stripped)
  kInconsistent,  // disagrees with its message's first packet (freed, counted)
  kDuplicate,     // a packet of the message already held (freed, counted)
  kStored,        // stored in slot; `first` if it opened the slot
};

struct ArrivalResult {
  Arrival kind = Arrival::kStale;
  int slot = -1;
  bool first = false;
  // A slot freed on the way: a restarted sender's unfinished predecessor
  // under the same id (the protocol forgets any state it keeps for it).
  int superseded = -1;
};

class ReceiveFront {
 public:
  ReceiveFront(const TransportParams& p, NicCounters* counters);

  // The front half of on_data for a packet of either protocol's header
  // (they name the shared fields alike). `chopped`: the header's CHOP flag.
  template <typename Header>
  ArrivalResult accept(rte_mbuf* pkt, uint32_t src_ip, const Header& h, bool chopped,
                       size_t payload_bytes, ContextEntry* dst, uint64_t now) {
    return accept(pkt, src_ip, Fields::of(h), DeliveredId::of(src_ip, h), chopped, payload_bytes,
                  dst, now, [&](InboundState& m) { take_identity(m, src_ip, h, dst); });
  }
  // A complete message leaves the transport: MsgMeta filled, its id
  // remembered (exactly once), handed to core selection. (Inline: the one-
  // packet message's path, the common RPC case.)
  void hand_over(rte_mbuf* head, const DeliveredId& id, uint32_t core_time, ContextEntry* dst,
                 uint64_t now, TransportSink& sink) {
    MsgMeta* meta = msg_meta(head);
    meta->app_header = AppHeader{id.src_ip, id.src_context, id.msg_len}.word();
    meta->nic_tsc = now;
    meta->core_time = core_time;
    meta->run = static_cast<uint16_t>(id.epoch >> 8);
    delivered_.remember(id, now);
    (void)sink.deliver(head, dst);
  }
  // The slot's message is whole: its packets chained and handed over, the
  // slot freed.
  void deliver(uint32_t slot, uint64_t now, TransportSink& sink);
  // Frees a partial message that can never complete (expired, superseded, aborted).
  void abandon(uint32_t slot);

  // This protocol's sender hears NACK|REJECT (NDP): a context's SLO can
  // reject. Off (Homa: no flag left for it), a message over the SLO is
  // NACKed as a full context's and retried.
  void reject_for_load(bool on) { rejects_for_load_ = on; }
  // Who sees each packet kept and each message abandoned (null: nobody).
  void set_tap(PacketTap* tap) { tap_ = tap; }

  [[nodiscard]] InboundMessage& at(uint32_t slot) { return buffer_.at(slot); }
  [[nodiscard]] int find(uint32_t src_ip, uint16_t buf_ptr, uint16_t tx_msg_id) const {
    return buffer_.find(ReassemblyBuffer::key_of(src_ip, buf_ptr, tx_msg_id));
  }
  // Whether a new one-packet message to dst would be admitted now, with
  // room kept for `pending` more already asked for
  // (nic/transport/ndp/refused_pulls.h).
  [[nodiscard]] bool admits_one(const ContextEntry* dst, uint32_t pending) const {
    ContextUsage use;
    use.slots = dst->reassembling;
    use.packets = dst->packets + pending;
    use.queued = dst->held.count() + pending;
    use.queue_capacity = dst->held.capacity();
    use.priority = dst->priority(p_.workers);
    return partition_.admit(use, 1, buffer_.used_slots()) == Admission::kAdmit;
  }
  [[nodiscard]] uint32_t capacity() const { return buffer_.capacity(); }
  [[nodiscard]] uint32_t slots_in_use() const { return buffer_.used_slots(); }
  [[nodiscard]] const TransportParams& params() const { return p_; }

 private:
  // The header fields the checks read, whichever protocol's header.
  struct Fields {
    uint16_t dst_incarnation, msg_len, src_context, buf_ptr, tx_msg_id;
    uint8_t pkt_offset;
    uint32_t epoch;
    template <typename Header>
    static Fields of(const Header& h) {
      return {h.dst_incarnation, h.msg_len,    h.src_context, h.buf_ptr,
              h.tx_msg_id,       h.pkt_offset, wire::sender_epoch(h.incarnation, h.buf_size_class)};
    }
  };
  template <typename TakeIdentity>
  ArrivalResult accept(rte_mbuf* pkt, uint32_t src_ip, const Fields& f, const DeliveredId& id,
                       bool chopped, size_t payload_bytes, ContextEntry* dst, uint64_t now,
                       const TakeIdentity& take);
  // The slot already holding f's message (-1: none), after dropping a
  // restarted sender's unfinished predecessor under the same id.
  int current_slot(uint32_t src_ip, const Fields& f, int* superseded);
  // The buffer partition's verdict `a` on a new message, rejections for
  // load settled (out of line: only an SLO context's path): a copy of one
  // already rejected is rejected again, room or not; a sender that cannot
  // hear REJECT, or an id the delivered-id memory no longer vouches for, is
  // NACKed as a full context's instead.
  Admission settle_rejection(Admission a, const DeliveredId& id, bool beyond, uint64_t now);
  ArrivalResult drop(rte_mbuf* pkt, Arrival kind, int slot, int superseded);

  TransportParams p_;
  NicCounters* counters_;
  ReassemblyBuffer buffer_;
  DeliveredIds delivered_;
  RejectedIds rejected_;  // rejected for load: their copies are rejected too
  bool rejects_for_load_ = false;
  BufferPartition partition_;
  PacketTap* tap_ = nullptr;
};

template <typename TakeIdentity>
ArrivalResult ReceiveFront::accept(rte_mbuf* pkt, uint32_t src_ip, const Fields& f,
                                   const DeliveredId& id, bool chopped, size_t payload_bytes,
                                   ContextEntry* dst, uint64_t now, const TakeIdentity& take) {
  if (f.dst_incarnation != 0 && f.dst_incarnation != p_.incarnation) {
    // Meant for this address's previous process (a reply to its request, or
    // a request it may already have served): not ours to take.
    ++counters_->rx_drop_stale_incarnation;
    return drop(pkt, Arrival::kStale, -1, -1);
  }
  int superseded = -1;
  int s = current_slot(src_ip, f, &superseded);
  bool beyond = false;  // older than the delivered-id memory keeps: maybe delivered already
  if (s < 0 && delivered_.seen(id, now, &beyond)) {
    ++counters_->rx_dup_packets;
    return drop(pkt, Arrival::kDelivered, -1, superseded);
  }
  if (s >= 0) delivered_.heard_from(id, now);  // its sender's memory lasts while it speaks
  if (s >= 0 && (buffer_.at(static_cast<uint32_t>(s)).msg_len != f.msg_len ||
                 buffer_.at(static_cast<uint32_t>(s)).src_context != f.src_context)) {
    // Disagrees with its message's first packet: nothing to answer.
    ++counters_->rx_parse_errors[static_cast<size_t>(wire::ParseError::kBadLength)];
    return drop(pkt, Arrival::kInconsistent, s, superseded);
  }
  if (chopped) {
    ++counters_->rx_chopped_packets;
    return drop(pkt, Arrival::kChopped, s, superseded);
  }
  bool first = false;
  if (s < 0) {
    const auto npkts = static_cast<uint32_t>(wire::packets_for(f.msg_len));
    Admission a = partition_.admit(dst, npkts, buffer_.used_slots(), p_.workers);
    if (a == Admission::kRejected || !rejected_.empty()) [[unlikely]]
      a = settle_rejection(a, id, beyond, now);
    // Simulation only (lib/base/nic_buggify.h): the context's buffers report
    // full, and the sender must come back for it (a NACK, then a PULL).
    if (a == Admission::kAdmit && nic_buggify()) a = Admission::kContextPackets;
    if (a == Admission::kAdmit && npkts == 1) {
      // Complete on arrival: no reassembly slot or index entry (the common
      // RPC case), the same accounting.
      ++dst->packets;
      strip_to_payload(pkt, payload_bytes);
      return {Arrival::kSingle, -1, true, superseded};
    }
    if (a == Admission::kRejected) [[unlikely]]
      return drop(pkt, Arrival::kRejected, -1, superseded);
    if (a != Admission::kAdmit ||
        (s = buffer_.allocate(ReassemblyBuffer::key_of(src_ip, f.buf_ptr, f.tx_msg_id))) < 0) {
      BufferPartition::count_refusal(a, counters_);
      return drop(pkt, Arrival::kRefused, -1, superseded);
    }
    ++dst->reassembling;
    dst->packets += npkts;
    take(buffer_.at(static_cast<uint32_t>(s)));
    first = true;
  }
  InboundMessage& m = buffer_.at(static_cast<uint32_t>(s));
  m.last_tsc = now;
  m.heard_tsc = now;
  const uint64_t bit = 1ull << f.pkt_offset;
  if (m.received & bit) {
    ++counters_->rx_dup_packets;
    return drop(pkt, Arrival::kDuplicate, s, superseded);
  }
  strip_to_payload(pkt, payload_bytes);
  m.pkts[f.pkt_offset] = pkt;
  m.received |= bit;
  ++m.received_count;
  if (tap_ != nullptr) [[unlikely]]
    tap_->on_stored(m, f.pkt_offset);
  return {Arrival::kStored, s, first, superseded};
}

}  // namespace nanopu
