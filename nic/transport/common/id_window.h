// A sender's message ids, numbered per receiver and kept within what the
// receiver remembers (docs/wire.md, "Message ids").
//
// A receiver tells a copy of a delivered message (its ACK was lost) from a
// new one by a window of the sender's last wire::kIdWindow ids
// (delivered_ids.h). A sender numbering every message from one counter let
// a message outlive that window: at 100 k messages/s, 16,384 ids pass in
// ~160 ms, while a message whose packets and ACKs keep being lost is
// retransmitted for seconds; its late copy looked new and was delivered
// twice (the fault soak, CHANGELOG.md). So, as TCP's send window bounds
// its sequence space (RFC 9293 §3.3.2), a message takes an id only while
// its receiver's ids in flight span less than wire::kIdsInFlight; else it
// is held here, with every later message to the same receiver, until the
// oldest leaves (acknowledged or given up).
//
// One counter per receiver address, exactly: a receiver sees its ids
// consecutive. Counters shared by several receivers (hashed) would leave a
// rarely addressed receiver a gap of more than half the id space now and
// then, which serial arithmetic reads as an id *behind* the window: a new
// message could then be taken for a duplicate and dropped. The cost is a
// few bytes per receiver ever sent to, kept for the sender's life (a
// counter forgotten and started again at 0 could look old to a receiver
// that still remembers the sender).
#pragma once

#include <rte_mbuf.h>

#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "lib/wire/frame.h"
#include "nic/packetizer/packetization_buffer.h"

namespace nanopu {

class IdWindow {
 public:
  // buffer: the sender's slots, where the messages in flight and their ids are.
  explicit IdWindow(const PacketizationBuffer& buffer) : buffer_(buffer) {}
  ~IdWindow();  // frees the messages still held
  IdWindow(const IdWindow&) = delete;
  IdWindow& operator=(const IdWindow&) = delete;

  // The id of a new message to dst_ip, false when it must wait (hold() it):
  // its receiver's window is full, or earlier messages to it wait already.
  [[nodiscard]] bool try_take(uint32_t dst_ip, uint16_t* id);
  // Keeps msg (to dst_ip, meant for its run dst_run as known when the
  // thread's message was taken) until its receiver's window opens.
  void hold(rte_mbuf* msg, uint32_t dst_ip, uint16_t dst_run);
  // Messages held: each will need a slot of the buffer.
  [[nodiscard]] uint32_t held() const { return static_cast<uint32_t>(held_.size()); }
  // Calls fn(msg, id, dst_run) for each held message whose window has
  // opened, in the order they were held (per receiver: the order they were
  // sent). fn must not call back into this window.
  template <typename Fn>
  void release_ready(Fn&& fn);

 private:
  struct Peer {
    uint16_t next = 0;    // the next id
    uint16_t oldest = 0;  // no id in flight to the peer is older (a bound until rescanned)
    uint32_t oldest_slot = UINT32_MAX;  // where `oldest` was found in flight, if it was
    uint32_t held = 0;                  // messages held for it
    uint32_t blocked_pass = 0;          // release_ready() pass in which one of them still waits
  };
  struct Held {
    rte_mbuf* msg;
    uint32_t dst_ip;
    uint16_t dst_run;
  };
  [[nodiscard]] Peer& peer(uint32_t ip);
  [[nodiscard]] bool take_from(uint32_t ip, Peer& p, uint16_t* id);
  // The oldest message in flight to ip, found in the buffer.
  void rescan(uint32_t ip, Peer& p);

  const PacketizationBuffer& buffer_;
  std::vector<Peer> peers_;
  absl::flat_hash_map<uint32_t, uint32_t> index_;  // address -> peers_ index
  uint32_t last_ip_ = 0;                           // back-to-back messages to one peer skip the map
  uint32_t last_index_ = UINT32_MAX;
  std::vector<Held> held_;  // in the order held
  uint32_t pass_ = 0;
};

template <typename Fn>
void IdWindow::release_ready(Fn&& fn) {
  if (held_.empty()) return;
  ++pass_;  // a peer stays in order: once one of its messages waits, the rest do
  size_t kept = 0;
  for (const Held h : held_) {
    Peer& p = peer(h.dst_ip);
    uint16_t id = 0;
    if (p.blocked_pass != pass_ && take_from(h.dst_ip, p, &id)) {
      --p.held;
      fn(h.msg, id, h.dst_run);
    } else {
      p.blocked_pass = pass_;
      held_[kept++] = h;
    }
  }
  held_.resize(kept);
}

}  // namespace nanopu
