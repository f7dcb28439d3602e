// A cumulative ACK's list: the further messages of one peer an ACK control
// packet acknowledges whole, in its otherwise zero 64-byte payload
// (docs/wire.md, "Acknowledgements that ride on data", "Lists").
//
// A receiver holds the ACK of each whole message from a nanopu sender for a
// DATA packet to carry (nic/transport/common/held_acks.h). A one-way stream has
// no such packets, so every held ACK used to leave as a control packet of
// its own: one frame back per message. When a hold runs out, the ACKs held
// for the same peer, contexts and runs now leave together, up to kMax of
// them in the payload of the first one's ACK — as a TCP ACK covers every
// segment before it (RFC 9293 §3.4), except that NDP's messages are
// acknowledged each by its own id and slot, so they are listed, not ranged.
//
// Payload layout (big-endian): byte 0 the count (1..kMax), byte 1 zero,
// then per message its tx_msg_id (2 bytes) and buf_ptr (2 bytes). Pure
// functions, fuzzed (fuzz/frame_fuzz.cc).
#pragma once

#include <array>
#include <cassert>
#include <cstddef>
#include <cstdint>

#include "lib/wire/frame.h"

namespace nanopu::wire {

// A message named in a list: what the sender finds it by (its slot and id).
struct ListedMessage {
  uint16_t tx_msg_id = 0;
  uint16_t buf_ptr = 0;
  friend bool operator==(const ListedMessage&, const ListedMessage&) = default;
};

struct AckList {
  static constexpr size_t kMax = (kControlPayloadBytes - 2) / 4;  // 15
  uint8_t count = 0;
  std::array<ListedMessage, kMax> msgs{};

  [[nodiscard]] bool full() const { return count == kMax; }
  [[nodiscard]] bool empty() const { return count == 0; }
  void add(ListedMessage m) {
    assert(!full());
    msgs[count++] = m;
  }
};

// Writes list (1..kMax entries) into a control packet's payload of
// kControlPayloadBytes, zero after the last entry.
void encode_ack_list(const AckList& list, uint8_t* payload);
// Reads a list from len payload bytes; false (out untouched) when the
// count is 0, above kMax, or more than len bytes would hold, or byte 1 is
// not zero.
[[nodiscard]] bool decode_ack_list(const uint8_t* payload, size_t len, AckList* out);

// The whole-message ACK a list names for m, as the control packet its
// sender would have taken alone: `first`'s contexts and runs (the list's
// first ACK), a bitmap naming every packet (the sender keeps the bits its
// message has), m's id and slot. A carried ACK stands for the same
// (nic/transport/common/held_acks.h, HeldAcks::carried).
[[nodiscard]] NdpHeader listed_ack(const NdpHeader& first, ListedMessage m);

}  // namespace nanopu::wire
