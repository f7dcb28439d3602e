// ACKs held back so that a DATA packet to the same peer can carry them
// (docs/wire.md, "Acknowledgements that ride on data"), in NDP and in Homa.
//
// A receiver that has taken a whole message (one packet; or several, from a
// sender that announced it reads a carried ACK as the whole message's)
// would answer it with an ACK control packet at once. Between nanopu hosts
// it holds that ACK for up to `hold_ticks` instead: an RPC server's reply,
// or a client's next request, to the same peer and context pair usually
// leaves before then and carries it in its header, so one request/reply
// exchange crosses each NIC as two frames instead of four. eRPC lets a
// response acknowledge its request, and Homa sends no ACK for a request
// ("Homa: A Receiver-Driven Low-Latency Transport Protocol Using Network
// Priorities", its RPC design; the Linux HomaModule piggybacks its ACKs on
// DATA); this is the same saving, negotiated: only a sender that announces
// it takes them is answered this way, so the nanoPU prototype and its
// tester see exactly the ACKs they always did.
//
// An ACK no packet took leaves when its hold runs out; in NDP with the
// ACKs held behind it for the same peer, contexts and runs in its list
// when their sender reads lists (lib/wire/ack_list.h): a one-way stream's
// ACKs cost a frame per 16 messages, not one each. Homa has no lists.
//
// A FIFO in arrival order, so deadlines are in order too; replies mostly
// leave in request order, so a match is found near the head. Hand-written:
// a bounded ring with a short match scan is all it needs.
#pragma once

#include <cstdint>
#include <type_traits>
#include <vector>

#include "lib/wire/ack_list.h"
#include "lib/wire/frame.h"
#include "nanopu/stats.h"
#include "nic/transport/transport.h"

namespace nanopu {

// Header: wire::NdpHeader or wire::HomaHeader, the ACK as its control packet.
template <typename Header>
class HeldAckQueue {
 public:
  // capacity: ACKs held at once (a power of two); when full, the oldest is
  // sent at once. hold_ticks 0: never hold (every ACK leaves at once).
  HeldAckQueue(uint32_t capacity, uint64_t hold_ticks, NicCounters* counters);

  [[nodiscard]] bool enabled() const { return hold_ticks_ != 0; }
  // Holds `ack` (the control packet the receiver would send to ip now).
  // lists (NDP): its sender announced wire::kOptTakesAckLists, so the ACK
  // may leave in another's list, or with others in its own.
  void hold(uint32_t ip, const Header& ack, bool lists, uint64_t now, TransportSink& sink);
  // Puts into the DATA header h, bound for ip, the oldest held ACK it may
  // carry: same peer, the contexts of h swapped, and the run h names
  // (dst_incarnation) is the run the held ACK answers. False if none.
  bool attach(uint32_t ip, Header& h);
  // Sends the ACKs whose hold has run out as control packets, each with
  // the later ACKs held for the same peer, contexts and runs in its list
  // (lib/wire/ack_list.h) when their sender reads lists.
  void expire(uint64_t now, TransportSink& sink);
  // The next hold to run out (UINT64_MAX: none held).
  [[nodiscard]] uint64_t next_deadline() const;
  [[nodiscard]] uint32_t size() const { return static_cast<uint32_t>(tail_ - head_); }

  // The ACK a DATA packet carries, as the control packet its sender would
  // have sent (what the sender's on_control takes).
  [[nodiscard]] static wire::FrameHeader carried(const wire::FrameHeader& data);

 private:
  struct Entry {
    uint32_t ip = 0;
    bool taken = false;
    bool lists = false;  // its sender reads ACK lists
    uint64_t deadline = 0;
    Header ack;
  };
  static constexpr bool kNdp = std::is_same_v<Header, wire::NdpHeader>;
  // Entries a DATA packet looks at for a match: replies leave mostly in
  // order, so a longer scan would rarely find more and would cost every packet.
  static constexpr uint32_t kMatchScan = 16;
  // Entries an expiring ACK looks at for others to list: a one-way stream
  // holds one peer's ACKs back to back, so the next few are the candidates.
  static constexpr uint32_t kListScan = 64;

  Entry& at(uint64_t i) { return ring_[i & mask_]; }
  [[nodiscard]] const Entry& at(uint64_t i) const { return ring_[i & mask_]; }
  void send_head(TransportSink& sink);
  // The ACKs after the head that may leave in its list; marks them taken.
  void gather_list(const Entry& head, wire::AckList* list);
  // Whether e, not yet taken, acknowledges peer ip's message between these
  // contexts, sent in the peer's run `incarnation` (what a carrier or a
  // list's head must share with it).
  [[nodiscard]] static bool open_for(const Entry& e, uint32_t ip, uint16_t src_context,
                                     uint16_t dst_context, uint16_t incarnation) {
    return !e.taken && e.ip == ip && e.ack.src_context == src_context &&
           e.ack.dst_context == dst_context && e.ack.incarnation == incarnation;
  }
  void skip_taken();

  std::vector<Entry> ring_;
  uint64_t mask_;
  uint64_t hold_ticks_;
  NicCounters* counters_;
  uint64_t head_ = 0, tail_ = 0;
};

using HeldAcks = HeldAckQueue<wire::NdpHeader>;
using HomaHeldAcks = HeldAckQueue<wire::HomaHeader>;

}  // namespace nanopu
