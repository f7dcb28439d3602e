// The Homa transport header (protocol 0x9A, docs/wire.md "Homa header"): the
// nanoPU prototype's layout, with nanopu's run and core-time fields in its
// padding as NDP has them. Host-order values; the codec is in frame.cc's
// dispatch (encode_homa_header / decode_homa_header below).
#pragma once

#include <cstddef>
#include <cstdint>

namespace nanopu::wire {

// Homa flags (byte 0). DATA stands alone (with CHOP when trimmed); the rest
// are control packets.
inline constexpr uint8_t kHomaData = 0x01;
inline constexpr uint8_t kHomaAck = 0x02;     // the whole message is delivered
inline constexpr uint8_t kHomaNack = 0x04;    // no room: try again on your timer
inline constexpr uint8_t kHomaGrant = 0x08;   // send up to grant_offset at grant_prio
inline constexpr uint8_t kHomaChop = 0x10;    // DATA trimmed by a switch
inline constexpr uint8_t kHomaResend = 0x20;  // send [pkt_offset·1024, grant_offset) again
// Alive, but not sending/granting you now. Alone: a sender to a receiver
// (its answer to RESEND); with GRANT: a receiver to a sender (wait your turn).
inline constexpr uint8_t kHomaBusy = 0x40;
// nanopu: as NDP's GONE (docs/wire.md, "Sender incarnation"), the receiver is
// another run than the message names.
inline constexpr uint8_t kHomaGone = 0x80;

// DATA options (byte 28), as NDP's kOpt* (docs/wire.md, "Acknowledgements
// that ride on data"): this sender takes an ACK riding on DATA; this packet
// carries one (acked_msg_id, acked_buf_ptr name the whole message acknowledged).
inline constexpr uint8_t kHomaOptTakesAcks = 0x01;
inline constexpr uint8_t kHomaOptCarriesAck = 0x02;

// Homa's eight priority levels travel in the IPv4 TOS byte as 0..7 (7 the
// highest); anything above is a counted drop (ParseError::kBadPriority).
inline constexpr uint8_t kHomaPriorities = 8;
// GRANTs, RESENDs and BUSYs go at the highest, overtaking data (Homa §3.4).
inline constexpr uint8_t kHomaControlPriority = kHomaPriorities - 1;

struct HomaHeader {
  uint8_t flags = 0;
  uint16_t src_context = 0;
  uint16_t dst_context = 0;
  uint16_t msg_len = 0;
  uint8_t pkt_offset = 0;     // DATA: packet index; RESEND: first packet wanted
  uint16_t grant_offset = 0;  // GRANT: bytes the sender may send up to; RESEND: range end (bytes)
  uint8_t grant_prio = 0;     // GRANT: the priority to send the granted bytes at
  uint16_t tx_msg_id = 0;
  uint16_t buf_ptr = 0;
  uint8_t buf_size_class = 0;
  uint16_t incarnation = 0;      // nanopu, bytes 16–17 (NdpHeader::incarnation)
  uint16_t dst_incarnation = 0;  // nanopu, bytes 18–19
  uint32_t core_time = 0;        // nanopu, bytes 20–23, DATA only (1/16 ns)
  uint16_t acked_msg_id = 0;     // nanopu, bytes 24–25, DATA with kHomaOptCarriesAck
  uint16_t acked_buf_ptr = 0;    // nanopu, bytes 26–27, the same
  uint8_t options = 0;           // nanopu, byte 28, DATA: kHomaOpt*

  friend bool operator==(const HomaHeader&, const HomaHeader&) = default;
};

// The 30 transport-header bytes at l4 (after Ethernet and IPv4).
void encode_homa_header(const HomaHeader& h, uint8_t* l4);
void decode_homa_header(const uint8_t* l4, HomaHeader* out);
// Whether the flags make sense: DATA alone or with CHOP, or a control packet
// of one or more of ACK/NACK/GRANT/RESEND/BUSY/GONE.
[[nodiscard]] bool homa_flags_valid(uint8_t flags);

}  // namespace nanopu::wire
