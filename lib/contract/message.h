// A message between the NIC core and a thread is an mbuf chain (one segment
// per packet) carrying MsgMeta in the first mbuf's private area.
//
// RX: the data pointer is at the first payload byte (frame header stripped),
//     pkt_len == message length.
// TX: the thread writes payload after kFrameHeaderBytes of room, so the
//     packetizer fills the 64-byte header in place: no copy, no prepend.
#pragma once

#include <rte_mbuf.h>

#include <cstdint>

namespace nanopu {

struct MsgMeta {
  uint64_t app_header = 0;  // RX: source ip/context/len; TX: destination
  uint64_t nic_tsc = 0;     // TSC when the NIC core took it (RX arrival / TX gather)
  uint16_t src_context = 0; // TX: context of the sending thread
  uint16_t sender = 0;      // TX: the NIC's index of the sending thread (give-up reports)
  // The peer's run (sender incarnation, docs/wire.md). RX: the sender's.
  // TX: the destination's run this message answers — the run of the
  // message its thread last took from that (ip, context), for the first
  // message written back to it (Thread::run_for) — so that a reply
  // to a process that has since restarted is refused by its successor, not
  // taken for the answer to the successor's own request; 0: the run the
  // NIC last heard from that peer (nic/transport/common/peer_runs.h).
  uint16_t run = 0;
  // 1/16 ns. TX: the sending thread's on-core time for the message it was
  // serving (Thread::sender_core_ns); RX: the sender's, from the header's
  // core_time (docs/wire.md). 0: unknown.
  uint32_t core_time = 0;
  // TX: the sending thread's number for the message (Thread::tx_tag()),
  // named back to it if the message is given up or refused.
  uint64_t tag = 0;
  // TX, in a simulation only: when the sending core finished the message on
  // its own modelled clock (its work charged); the NIC takes it no sooner.
  uint64_t ready_tsc = 0;
};

inline constexpr uint16_t kMsgMetaBytes =
    static_cast<uint16_t>((sizeof(MsgMeta) + RTE_MBUF_PRIV_ALIGN - 1) & ~(RTE_MBUF_PRIV_ALIGN - 1));

[[nodiscard]] inline MsgMeta* msg_meta(rte_mbuf* m) {
  return static_cast<MsgMeta*>(rte_mbuf_to_priv(m));
}

}  // namespace nanopu
