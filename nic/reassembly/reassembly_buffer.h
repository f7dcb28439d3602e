// The reassembly buffer (nanoPU tail-latency version §3.1; nanoPU appendix): fixed-size message slots
// with a per-message packet bitmap, looked up by (source IP, sender's buffer,
// sender's message id). What was delivered is remembered apart
// (delivered_ids.h).
#pragma once

#include <rte_mbuf.h>

#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "lib/contract/context_table.h"
#include "lib/wire/frame.h"

namespace nanopu {

// A message slot's state; the packets are kept apart (InboundMessage) so a
// slot is reset without rewriting its 64 packet pointers.
struct InboundState {
  bool used = false;
  uint64_t key = 0;
  uint32_t src_ip = 0;
  uint16_t src_context = 0;
  uint16_t dst_context = 0;
  uint16_t msg_len = 0;
  uint16_t tx_msg_id = 0;
  uint16_t buf_ptr = 0;
  uint8_t buf_size_class = 0;
  uint16_t incarnation = 0;
  uint16_t dst_incarnation = 0;
  uint32_t core_time = 0;       // the sender's, from the first packet (frame.h)
  uint8_t npkts = 0;
  uint8_t received_count = 0;
  uint16_t pulled = 0;          // highest pull_offset granted
  bool pull_queued = false;     // waiting in the pacer's queue
  uint64_t received = 0;        // bitmap
  uint64_t last_tsc = 0;        // last packet seen (expiry), or Homa's last RESEND
  uint64_t heard_tsc = 0;       // last packet (or Homa BUSY) from its sender
  uint8_t resends = 0;          // Homa: RESENDs sent since the last packet in
  uint8_t grant_priority = 0;   // Homa: the priority last granted
  uint8_t unscheduled = 0;      // Homa: packets its sender sends unasked
  bool granted = false;         // Homa: this receiver has granted it (scheduled data)
  bool coalesce = false;        // NDP: its sender takes one bitmap ACK per poll (kOptAckBitmap)
  bool hold_whole = false;  // NDP: ... and a carried ACK of the whole message (kOptTakesWholeAcks)
  bool ack_lists = false;   // NDP: ... and ACK lists (kOptTakesAckLists)
  bool ack_owed = false;        // NDP: packets arrived this poll that no ACK has named yet
  uint16_t tx_stamp = 0;        // NDP: the last packet's send stamp, echoed in its ACK (send_stamp.h)
  uint16_t spin_stream = 0;     // the PacketTap's: its sPIN stream + 1, or 0 (packet_tap.h)
  ContextEntry* dst = nullptr;
};

struct InboundMessage : InboundState {
  rte_mbuf* pkts[wire::kMaxPacketsPerMessage] = {};  // null past npkts (release() keeps it so)
};

// A new message's identity, from its first packet's header (NDP's or
// Homa's: the fields share their names), and the context it is for.
template <typename Header>
void take_identity(InboundState& m, uint32_t src_ip, const Header& h, ContextEntry* dst) {
  m.src_ip = src_ip;
  m.src_context = h.src_context;
  m.dst_context = h.dst_context;
  m.msg_len = h.msg_len;
  m.tx_msg_id = h.tx_msg_id;
  m.buf_ptr = h.buf_ptr;
  m.buf_size_class = h.buf_size_class;
  m.incarnation = h.incarnation;
  m.dst_incarnation = h.dst_incarnation;
  m.core_time = h.core_time;
  m.npkts = static_cast<uint8_t>(wire::packets_for(h.msg_len));
  m.dst = dst;
}

// The control packet a receiver sends about message m (NDP's or Homa's
// header): contexts swapped, the sender's ids, buffer and runs echoed.
template <typename Header>
[[nodiscard]] Header control_about(const InboundState& m, uint8_t flags, uint8_t pkt_offset) {
  Header c;
  c.flags = flags;
  c.src_context = m.dst_context;
  c.dst_context = m.src_context;
  c.msg_len = m.msg_len;
  c.pkt_offset = pkt_offset;
  c.tx_msg_id = m.tx_msg_id;
  c.buf_ptr = m.buf_ptr;
  c.buf_size_class = m.buf_size_class;
  c.incarnation = m.incarnation;
  c.dst_incarnation = m.dst_incarnation;
  return c;
}

// Keeps a DATA packet's payload only: header off, Ethernet padding cut.
inline void strip_to_payload(rte_mbuf* pkt, size_t payload_bytes) {
  rte_pktmbuf_adj(pkt, wire::kFrameHeaderBytes);
  if (pkt->pkt_len > payload_bytes) rte_pktmbuf_trim(pkt, static_cast<uint16_t>(pkt->pkt_len - payload_bytes));
}

// Chains a complete message's packets in order; returns the head (pkt_len
// is the message length).
inline rte_mbuf* link_packets(InboundMessage& m) {
  rte_mbuf* head = m.pkts[0];
  for (uint8_t i = 0; i + 1 < m.npkts; ++i) m.pkts[i]->next = m.pkts[i + 1];
  head->nb_segs = m.npkts;
  head->pkt_len = m.msg_len;
  return head;
}

class ReassemblyBuffer {
 public:
  explicit ReassemblyBuffer(uint32_t slots);
  ~ReassemblyBuffer();
  ReassemblyBuffer(const ReassemblyBuffer&) = delete;
  ReassemblyBuffer& operator=(const ReassemblyBuffer&) = delete;

  [[nodiscard]] static uint64_t key_of(uint32_t src_ip, uint16_t buf_ptr, uint16_t tx_msg_id) {
    return (uint64_t{src_ip} << 32) | (uint64_t{buf_ptr} << 16) | tx_msg_id;
  }
  // The slot holding key, or -1.
  [[nodiscard]] int find(uint64_t key) const;
  // A new slot for key, or -1 when every slot is in use.
  [[nodiscard]] int allocate(uint64_t key);
  // Frees the slot; its packets are freed unless `keep_packets` (delivered).
  void release(uint32_t slot, bool keep_packets);
  [[nodiscard]] InboundMessage& at(uint32_t slot) { return slots_[slot]; }
  [[nodiscard]] uint32_t capacity() const { return static_cast<uint32_t>(slots_.size()); }
  [[nodiscard]] uint32_t used_slots() const { return capacity() - static_cast<uint32_t>(free_.size()); }

 private:
  std::vector<InboundMessage> slots_;
  std::vector<uint32_t> free_;
  absl::flat_hash_map<uint64_t, uint32_t> index_;
};

}  // namespace nanopu
