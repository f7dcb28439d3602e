// The receiver's memory of delivered messages, so a retransmitted packet of a
// message already delivered (its ACK was lost) is acknowledged again but
// never delivered twice (docs/wire.md, "Receiver").
//
// Two memories, by the kind of sender:
//  - a nanopu sender (incarnation != 0) numbers its messages to us in order,
//    and keeps those in flight within half a window of each other
//    (id_window.h). Per (sender, incarnation), a window of the
//    last kWindowIds ids behind the highest delivered one holds a one-byte
//    tag per id — TCP's and QUIC's receive-window idea: an array indexed by
//    id, no hash per message and no random erase, where the per-message hash
//    map cost ~190 ns, 12 % of the NIC core (issue 19's profile);
//  - a prototype peer (incarnation 0: the nanoPU's own tester) reuses ids as
//    it likes, so its deliveries stay in a bounded hash map keyed by
//    (source, buffer, id), oldest forgotten first.
// A nanopu sender's message that completes already behind its window (one
// held back by SRPT while kWindowIds younger ones were delivered) goes to
// the map too. Both forget after `horizon` ticks of silence (a restarted sender whose run
// number collides is then not taken for its predecessor), and an id older
// than what they keep is taken as new: forgetting can only ever re-deliver
// an ancient duplicate, never drop a new message.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "lib/wire/frame.h"

namespace nanopu {

// One delivered (or arriving) message as the memory tells it apart.
struct DeliveredId {
  uint32_t src_ip = 0;
  uint16_t buf_ptr = 0;
  uint16_t tx_msg_id = 0;
  uint16_t src_context = 0;
  uint16_t msg_len = 0;
  uint32_t epoch = 0;  // wire::sender_epoch: incarnation << 8 | buf_size_class

  [[nodiscard]] static DeliveredId of(uint32_t src_ip, const wire::NdpHeader& n) {
    return {src_ip, n.buf_ptr, n.tx_msg_id, n.src_context, n.msg_len, wire::sender_epoch(n)};
  }
  [[nodiscard]] static DeliveredId of(uint32_t src_ip, const wire::HomaHeader& h) {
    return {src_ip, h.buf_ptr, h.tx_msg_id, h.src_context, h.msg_len,
            wire::sender_epoch(h.incarnation, h.buf_size_class)};
  }
  // A nanopu sender's ids to us come in order (the window applies).
  [[nodiscard]] bool ordered_ids() const { return (epoch >> 8) != 0; }
};

class DeliveredIds {
 public:
  // Ids one window keeps behind the highest delivered (wire::kIdWindow: a
  // sender keeps its ids in flight to us within half of it).
  static constexpr uint32_t kWindowIds = wire::kIdWindow;

  // `remembered`: prototype-peer deliveries kept; `max_senders`: nanopu
  // senders with a window (the least recently heard one is forgotten when a
  // new one arrives); `horizon`: ticks of silence after which a memory lapses.
  // `senders_forgotten` (may be null) counts the windows dropped for room;
  // `beyond_memory` (may be null) the ids asked about that are older than a
  // live window keeps and not in the map: taken as new, so a late duplicate
  // among them would be delivered twice (the one way exactly-once can fail).
  DeliveredIds(uint32_t remembered, uint32_t max_senders, uint64_t horizon,
               uint64_t* senders_forgotten = nullptr, uint64_t* beyond_memory = nullptr);

  // True when `id` was delivered. A hit also renews what is kept of its
  // sender: a copy arriving proves the sender alive and still
  // retransmitting (its ACK was lost), so its memory must outlive that
  // sender's next timeout, not lapse `horizon` after the delivery. The
  // sender's flags may differ from the receiver's (a client with the
  // default 1 s rto_max beside a server with 100 ms): renewal keeps the
  // memory whatever the sender's timeouts, as long as it is heard from.
  // *beyond (if given) is set when id is older than the sender's live
  // window keeps and not in the map: taken as new, though it may not be.
  [[nodiscard]] bool seen(const DeliveredId& id, uint64_t now, bool* beyond = nullptr);
  // A packet of a message still being reassembled: its sender is heard
  // from, so what is kept of it is renewed as seen() does.
  void heard_from(const DeliveredId& id, uint64_t now);
  void remember(const DeliveredId& id, uint64_t now);

 private:
  // One sender incarnation's window: tag[id % kWindowIds] != 0 when that id
  // was delivered, for ids in (highest - kWindowIds, highest].
  struct Window {
    uint32_t src_ip = 0;
    uint32_t epoch = 0;
    uint16_t highest = 0;
    uint64_t last_tsc = 0;
    std::unique_ptr<uint8_t[]> tag;  // kWindowIds entries
  };
  // The byte kept per id: buffer, context and length folded, never 0, so an
  // id reused after a 2^16 wrap is still told from its predecessor unless all
  // of them collide too.
  [[nodiscard]] static uint8_t tag_of(const DeliveredId& id);
  [[nodiscard]] const Window* find(uint32_t src_ip, uint32_t epoch) const;
  [[nodiscard]] Window& find_or_take(uint32_t src_ip, uint32_t epoch);
  // id's sender's window, if delivered to within the horizon; else nullptr.
  [[nodiscard]] Window* live_window(const DeliveredId& id, uint64_t now);
  // Heard from now (0 marks "never delivered", so a TSC of 0 counts as 1).
  static void renew(Window& w, uint64_t now) { w.last_tsc = now == 0 ? 1 : now; }
  void reset(Window& w, uint16_t highest) const;
  void advance(Window& w, uint16_t to) const;

  [[nodiscard]] static uint64_t key_of(uint32_t src_ip, uint32_t epoch) {
    return uint64_t{src_ip} << 32 | epoch;
  }
  [[nodiscard]] bool remembered_in_map(const DeliveredId& id, uint64_t now);  // renews a hit
  void remember_in_map(const DeliveredId& id, uint64_t now);

  uint64_t horizon_;
  uint32_t max_senders_;
  std::vector<Window> windows_;                           // grows to max_senders_, never shrinks
  absl::flat_hash_map<uint64_t, uint32_t> window_index_;  // (ip, epoch) -> windows_ index
  mutable uint32_t last_window_ = UINT32_MAX;             // back-to-back lookups skip the map
  uint64_t* senders_forgotten_;
  uint64_t* beyond_memory_;

  struct Completed {
    uint16_t src_context;
    uint16_t msg_len;
    uint32_t epoch;
    uint64_t tsc;
  };
  absl::flat_hash_map<uint64_t, Completed> completed_;
  std::vector<uint64_t> completed_ring_;
  size_t completed_next_ = 0;
};

}  // namespace nanopu
