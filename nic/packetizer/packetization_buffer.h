// The packetization buffer (nanoPU draft §3.4; nanoPU appendix): one fixed slot per
// outbound message, holding its packets until each is acknowledged so any
// of them can be sent again. The slot index travels as buf_ptr in every
// packet and comes back in the receiver's control packets (docs/wire.md).
#pragma once

#include <rte_mbuf.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "lib/contract/message.h"
#include "nanopu/app_header.h"
#include "lib/wire/frame.h"

namespace nanopu {

struct OutboundState {
  bool used = false;
  uint16_t tx_msg_id = 0;
  uint32_t dst_ip = 0;
  uint16_t src_context = 0;
  uint16_t sender = 0;        // MsgMeta::sender: told when the message is given up
  uint16_t dst_context = 0;
  uint16_t msg_len = 0;
  uint16_t dst_incarnation = 0;  // the receiver's run it is meant for (peer_runs.h)
  uint32_t core_time = 0;     // MsgMeta::core_time, carried in every DATA header
  uint64_t tag = 0;           // MsgMeta::tag: named in a give-up
  uint8_t npkts = 0;
  uint8_t next_new = 0;       // next packet never sent yet
  uint16_t credit = 0;        // packets with index < credit may be sent (PULL)
  uint64_t acked = 0;         // bitmap
  uint64_t resend = 0;        // bitmap: NACKed, to send again when credit allows
  uint32_t timeouts = 0;      // consecutive timer expiries without progress
  uint64_t resent = 0;        // bitmap: sent more than once (no RTT sample from these)
  uint64_t first_sent = 0;    // when the first packet left (RTT samples)
  uint8_t priority = 0;       // Homa: the priority (TOS) of its next DATA packets
  uint64_t last_sent = 0;     // Homa: when it last sent data never sent before
  uint64_t last_resent = 0;   // Homa: when it last sent a packet again
  uint64_t last_tx = 0;       // when any of its packets last left (peer_liveness.h)
  uint64_t last_progress = 0; // when it was taken, or its receiver last answered for it

  [[nodiscard]] uint64_t all_mask() const {
    return npkts == 64 ? ~0ull : (1ull << npkts) - 1;
  }
};

// The packets apart from the rest, as InboundMessage's: a slot is reset by
// its state alone (allocate()), not by the 512 bytes of pointers release()
// already left null — a memset per message the profile showed (issue 37).
struct OutboundMessage : OutboundState {
  rte_mbuf* pkts[wire::kMaxPacketsPerMessage] = {};  // our reference until acked; null past npkts
};

// The mbuf a kept packet goes to the port in (its first kFrameHeaderBytes
// are header room, written after this). The header is written into the
// kept buffer itself only while nobody else holds it (reference count 1):
// a frame still held elsewhere — the port's earlier send not yet gone or
// completed, a receiver's clone — must not have its header rewritten
// under it (a carried ACK in it would be lost, a half-written header fail
// its checksum), so it goes as a copy of its own.
//   - A port that only reads a frame and lets go of it (port_takes_kept:
//     Port::takes_kept_packets) gets the kept mbuf itself, one reference
//     more: no buffer taken, no copy, the header written where the worker
//     left room for it.
//   - Otherwise (a zero-copy PMD, net_ring, hands the very mbuf to the
//     receiver, which must be free to adjust and chain it while we keep
//     the original for retransmission) small packets are copied (the
//     receiver on another core then never touches our buffer's reference
//     count, a cache line we write on ACK) and larger ones cloned.
// nullptr: no mbuf now.
// Whether this core holds the only reference to m. An acquire, not DPDK's
// relaxed rte_mbuf_refcnt_read: the last holder elsewhere (a receiver on
// another core freeing its clone) read the frame before its release
// decrement, and the caller rewrites the frame after this (a plain load on
// x86; ThreadSanitizer sees the hand-off).
[[nodiscard]] inline bool ours_alone(const rte_mbuf* m) {
  return __atomic_load_n(&m->refcnt, __ATOMIC_ACQUIRE) == 1;
}

[[nodiscard]] inline rte_mbuf* packet_for_port(rte_mbuf* kept, rte_mempool* pool,
                                               uint16_t copy_below_bytes,
                                               bool port_takes_kept = false) {
  const bool plain =
      RTE_MBUF_DIRECT(kept) && kept->nb_segs == 1 && kept->data_len >= wire::kFrameHeaderBytes;
  const bool alone = ours_alone(kept);
  if (plain && alone && port_takes_kept) {
    rte_mbuf_refcnt_set(kept, 2);  // ours alone until now: no other core can race this store
    return kept;
  }
  if (alone && kept->data_len > copy_below_bytes) return rte_pktmbuf_clone(kept, pool);
  if (!plain) [[unlikely]]
    return rte_pktmbuf_copy(kept, pool, 0, UINT32_MAX);  // not a packet split_into_packets made
  // One segment: a fresh mbuf and one memcpy of the payload alone (the
  // header room is written by the framing that follows; the
  // rte_pktmbuf_copy of it all was 16 % of the NIC core's time in the rate
  // benchmark, most of it cache misses on lines the worker core wrote).
  rte_mbuf* c = rte_pktmbuf_alloc(pool);
  if (c == nullptr) return nullptr;
  c->data_len = kept->data_len;
  c->pkt_len = kept->data_len;
  std::memcpy(rte_pktmbuf_mtod_offset(c, uint8_t*, wire::kFrameHeaderBytes),
              rte_pktmbuf_mtod_offset(kept, const uint8_t*, wire::kFrameHeaderBytes),
              kept->data_len - wire::kFrameHeaderBytes);
  return c;
}

// Takes a thread's message (its MsgMeta and application header) into slot
// m under id: addresses, lengths, the run it is meant for, its packets.
inline void take_message(OutboundMessage& m, rte_mbuf* msg, uint16_t id, uint16_t dst_incarnation);

// One segment per packet: unlinks the chain a thread wrote into pkts[0..npkts).
inline void split_into_packets(rte_mbuf* msg, uint8_t npkts, rte_mbuf** pkts) {
  rte_mbuf* seg = msg;
  for (uint8_t i = 0; i < npkts && seg != nullptr; ++i) {
    rte_mbuf* next = seg->next;
    seg->next = nullptr;
    seg->nb_segs = 1;
    seg->pkt_len = seg->data_len;
    pkts[i] = seg;
    seg = next;
  }
}

inline void take_message(OutboundMessage& m, rte_mbuf* msg, uint16_t id, uint16_t dst_incarnation) {
  const MsgMeta* meta = msg_meta(msg);
  const AppHeader a = AppHeader::from_word(meta->app_header);
  m.tx_msg_id = id;
  m.dst_ip = a.ip;
  m.src_context = meta->src_context;
  m.sender = meta->sender;
  m.core_time = meta->core_time;
  m.tag = meta->tag;
  m.dst_context = a.context;
  m.msg_len = a.len;
  m.dst_incarnation = dst_incarnation;
  m.npkts = static_cast<uint8_t>(wire::packets_for(a.len));
  split_into_packets(msg, m.npkts, m.pkts);
}

class PacketizationBuffer {
 public:
  explicit PacketizationBuffer(uint32_t slots);
  ~PacketizationBuffer();
  PacketizationBuffer(const PacketizationBuffer&) = delete;
  PacketizationBuffer& operator=(const PacketizationBuffer&) = delete;

  // A free slot, or -1.
  [[nodiscard]] int allocate();
  // Frees the slot and every packet reference it still holds.
  void release(uint32_t slot);
  [[nodiscard]] OutboundMessage& at(uint32_t slot) { return slots_[slot]; }
  [[nodiscard]] const OutboundMessage& at(uint32_t slot) const { return slots_[slot]; }
  [[nodiscard]] uint32_t free_slots() const { return static_cast<uint32_t>(free_.size()); }
  [[nodiscard]] uint32_t capacity() const { return static_cast<uint32_t>(slots_.size()); }

 private:
  std::vector<OutboundMessage> slots_;
  std::vector<uint32_t> free_;
};

}  // namespace nanopu
