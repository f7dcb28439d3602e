// Ethernet + IPv4 + nanoPU transport header codec (docs/wire.md).
//
// The 64-byte frame header is one 512-bit flit in the nanoPU hardware. Every
// multi-byte field is big-endian on the wire; this codec is the only place that
// knows byte offsets. Pure functions, no DPDK state: the fuzzer and the unit
// tests drive it directly.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "nanopu/address.h"
#include "nanopu/limits.h"
#include "lib/wire/homa_header.h"

namespace nanopu::wire {

inline constexpr size_t kEthHeaderBytes = 14;
inline constexpr size_t kIpv4HeaderBytes = 20;
inline constexpr size_t kTransportHeaderBytes = 30;
inline constexpr size_t kFrameHeaderBytes =
    kEthHeaderBytes + kIpv4HeaderBytes + kTransportHeaderBytes;  // 64
inline constexpr size_t kSegmentBytes = 1024;        // MTU payload (docs/wire.md)
inline constexpr size_t kControlPayloadBytes = 64;   // zero payload of control packets
using ControlPayload = std::array<uint8_t, kControlPayloadBytes>;  // one that says more (ack_list.h)
inline constexpr size_t kMaxMessageBytes = nanopu::kMaxMessageBytes;  // 16-bit msg_len
inline constexpr size_t kMaxPacketsPerMessage = (kMaxMessageBytes + kSegmentBytes - 1) / kSegmentBytes;

inline constexpr uint16_t kEtherTypeIpv4 = 0x0800;
inline constexpr uint8_t kIpProtoNdp = 0x99;
inline constexpr uint8_t kIpProtoHoma = 0x9A;
inline constexpr uint8_t kDefaultTtl = 64;

// NDP flags (docs/wire.md, byte 0).
inline constexpr uint8_t kFlagData = 0x01;
inline constexpr uint8_t kFlagAck = 0x02;
inline constexpr uint8_t kFlagNack = 0x04;
inline constexpr uint8_t kFlagPull = 0x08;
inline constexpr uint8_t kFlagChop = 0x10;
// nanopu: "I am another run of this address than the one your message names"
// (docs/wire.md, "Sender incarnation"): the sender gives the message up at
// once. A control flag; the prototype never sends it.
inline constexpr uint8_t kFlagGone = 0x20;
// nanopu: with NACK, "rejected for load: this context is over the queue its
// SLO allows; I took nothing, do not retry into it" (docs/wire.md, "Rejected
// for load"; NEBULA (ISCA'20) §IV-B): the sender gives the message up at
// once and its thread hears TxFailureReason::kRejected. A control flag; the
// prototype never sends it.
inline constexpr uint8_t kFlagReject = 0x40;

// nanopu NDP options (docs/wire.md, byte 23, "Acknowledgements that ride on
// data"); the prototype leaves the byte zero and never reads it.
// kOptTakesAcks: this sender takes an ACK riding in a DATA packet, so its
// single-packet messages may be acknowledged that way (and takes bitmap
// ACKs, kOptAckBitmap).
// kOptCarriesAck: bytes 24-27 acknowledge one whole message the receiver
// of this packet sent to its sender (a single-packet one, or one whose
// sender announced kOptTakesWholeAcks).
// kOptTakesWholeAcks: this sender reads a carried ACK as acknowledging
// every packet of its message, so its multi-packet messages may be
// acknowledged that way too (a nanopu sender from before 2026-11-27 read
// it as packet 0's alone and does not announce this).
inline constexpr uint8_t kOptTakesAcks = 0x01;
inline constexpr uint8_t kOptCarriesAck = 0x02;
inline constexpr uint8_t kOptTakesWholeAcks = 0x08;
// On an ACK (control packet) to a sender that announced kOptTakesAcks:
// acked_bitmap (in bytes 19-22 and 24-27, unused in control packets) names
// every packet of the message received so far; one such ACK per message
// per poll replaces an ACK per packet.
inline constexpr uint8_t kOptAckBitmap = 0x04;
// kOptTakesAckLists (DATA): this sender reads an ACK's list, so ACKs held
// for it may leave together (ack_list.h).
// kOptAckList (on an ACK control packet to such a sender): the payload
// lists further messages this ACK acknowledges whole (ack_list.h).
inline constexpr uint8_t kOptTakesAckLists = 0x10;
inline constexpr uint8_t kOptAckList = 0x10;

using MacAddr = MacAddress;  // include/nanopu/address.h
inline constexpr MacAddr kBroadcastMac = kBroadcastMacAddress;

// The NDP transport header, host-order values.
struct NdpHeader {
  uint8_t flags = 0;
  uint16_t src_context = 0;
  uint16_t dst_context = 0;
  uint16_t msg_len = 0;      // payload bytes of the whole message
  uint8_t pkt_offset = 0;    // packet index within the message
  uint16_t pull_offset = 0;  // PULL: packets the receiver allows up to
  uint16_t tx_msg_id = 0;
  uint16_t buf_ptr = 0;
  uint8_t buf_size_class = 0;
  // The sender's incarnation (docs/wire.md): in what the prototype left as
  // padding, echoed by nanopu receivers; 0 from a peer that does not set it.
  uint16_t incarnation = 0;
  // DATA: the receiver's run this message is meant for, as the sender last
  // heard it (0: unknown, anyone's). Control packets echo it.
  uint16_t dst_incarnation = 0;
  // DATA, nanopu: the sending thread's on-core time for the message it was
  // serving when it wrote this one, in 1/16 ns (docs/wire.md, "Core time");
  // 0: unknown (a prototype peer, or no message served). Feeds the modelled
  // latency of the reply at its receiver (docs/design.md §10).
  uint32_t core_time = 0;
  // DATA, nanopu: kOpt* above; with kOptCarriesAck, the acknowledged
  // message's tx_msg_id and buf_ptr (its contexts are this packet's,
  // swapped; its incarnation is this packet's dst_incarnation).
  uint8_t options = 0;
  uint16_t acked_msg_id = 0;
  uint16_t acked_buf_ptr = 0;
  // A control packet with kOptAckBitmap: bit i set = packet i received.
  // On the wire it takes the bytes of core_time (low 32 bits) and of
  // acked_msg_id/acked_buf_ptr (high 32), which control packets leave zero.
  uint64_t acked_bitmap = 0;
  // nanopu, in what the prototype left as padding (bytes 28-29): in DATA,
  // the sender's send stamp for this transmission (its own clock, its own
  // units: opaque to the receiver); in a control packet, the stamp of the
  // DATA packet it answers, echoed, so the sender times the round trip of a
  // retransmission too (TCP's timestamps, RFC 7323 §3-4; send_stamp.h).
  // 0: none (a prototype peer sends and echoes none).
  uint16_t tx_stamp = 0;

  friend bool operator==(const NdpHeader&, const NdpHeader&) = default;
};

// One run of a sender, as a receiver tells it apart (docs/wire.md, "Sender
// incarnation"): both fields, so a prototype peer, which sets only
// buf_size_class, is still one incarnation.
[[nodiscard]] constexpr uint32_t sender_epoch(uint16_t incarnation, uint8_t buf_size_class) {
  return uint32_t{incarnation} << 8 | buf_size_class;
}
[[nodiscard]] constexpr uint32_t sender_epoch(const NdpHeader& n) {
  return sender_epoch(n.incarnation, n.buf_size_class);
}

// A nanopu sender's message ids, as its receivers rely on them (docs/wire.md,
// "Message ids"): a receiver remembers the last kIdWindow ids of each
// sender behind the highest it delivered (a quarter of the 16-bit space, so
// serial arithmetic, RFC 1982, tells ahead from behind), and a sender keeps
// the ids it has in flight to one receiver within kIdsInFlight of each
// other, so no copy of an unacknowledged message falls out of that memory;
// the other half of the window covers copies still in the network after
// their message was acknowledged.
inline constexpr uint32_t kIdWindow = 16384;
inline constexpr uint32_t kIdsInFlight = kIdWindow / 2;

// The transport header a transport hands its sink (nic/transport/transport.h):
// which protocol, the IPv4 TOS (Homa's priority), and that protocol's header.
// Only the header named by `protocol` is read.
struct TransportHeader {
  uint8_t protocol = 0;  // always named: of() below
  uint8_t tos = 0;
  NdpHeader ndp;    // kIpProtoNdp
  HomaHeader homa;  // kIpProtoHoma

  [[nodiscard]] static TransportHeader of(const NdpHeader& n) {
    TransportHeader t;
    t.protocol = kIpProtoNdp;
    t.ndp = n;
    return t;
  }
  [[nodiscard]] static TransportHeader of(const HomaHeader& h, uint8_t priority) {
    TransportHeader t;
    t.protocol = kIpProtoHoma;
    t.tos = priority;
    t.homa = h;
    return t;
  }
};

// Everything in the 64-byte header that is not derived (checksum, lengths).
struct FrameHeader {
  MacAddr dst_mac{};
  MacAddr src_mac{};
  uint32_t src_ip = 0;  // host order: 10.0.0.2 == 0x0a000002
  uint32_t dst_ip = 0;
  uint8_t tos = 0;
  uint8_t ttl = kDefaultTtl;
  uint8_t protocol = 0;  // kIpProtoNdp or kIpProtoHoma: every frame names it
  uint16_t ip_total_len = 0;  // filled by encode from the payload length; read by decode
  NdpHeader ndp;    // protocol kIpProtoNdp (decode leaves it alone otherwise)
  HomaHeader homa;  // protocol kIpProtoHoma

  // What the pipeline needs of either protocol (both put flags, contexts
  // and msg_len at the same bytes, and DATA is 0x01 in both).
  [[nodiscard]] bool is_homa() const { return protocol == kIpProtoHoma; }
  [[nodiscard]] uint8_t flags() const { return is_homa() ? homa.flags : ndp.flags; }
  [[nodiscard]] bool is_data() const { return (flags() & kFlagData) != 0; }
  [[nodiscard]] uint16_t dst_context() const { return is_homa() ? homa.dst_context : ndp.dst_context; }

  friend bool operator==(const FrameHeader&, const FrameHeader&) = default;
};

// Why a frame was rejected. Each value has a counter named by
// parse_error_name() so a user can grep the shutdown statistics.
enum class ParseError : uint8_t {
  kOk = 0,
  kShortFrame,        // fewer than 64 header bytes
  kNotIpv4,           // EtherType is not 0x0800
  kBadIpHeader,       // version/IHL not 4/5, fragmented, TTL 0
  kUnknownProtocol,   // neither NDP (0x99) nor Homa (0x9A)
  kBadChecksum,       // non-zero and wrong IPv4 header checksum
  kBadLength,         // IPv4 total length disagrees with frame or message fields
  kBadFlags,          // no known flag set, or DATA mixed with control flags
  kBadPriority,       // Homa: TOS above 7 (eight priority levels)
  kCount,
};
[[nodiscard]] std::string_view parse_error_name(ParseError e);

// Payload bytes a DATA packet at pkt_offset carries for a message of msg_len
// bytes: kSegmentBytes except for the last packet. 0 if the offset is past the end.
[[nodiscard]] constexpr size_t segment_payload_bytes(uint16_t msg_len, uint8_t pkt_offset) {
  const size_t start = size_t{pkt_offset} * kSegmentBytes;
  if (start >= msg_len) return 0;
  const size_t rest = msg_len - start;
  return rest < kSegmentBytes ? rest : kSegmentBytes;
}
[[nodiscard]] constexpr size_t packets_for(uint16_t msg_len) {
  return (size_t{msg_len} + kSegmentBytes - 1) / kSegmentBytes;
}

// Writes the 64 header bytes for a frame carrying payload_bytes after them,
// with a correct IPv4 header checksum (the prototype sent 0; docs/wire.md).
void encode_frame_header(const FrameHeader& h, size_t payload_bytes, uint8_t* out);
// The 30 transport header bytes at l4, in `protocol` (NDP or Homa).
void encode_transport_header(uint8_t protocol, const NdpHeader& ndp, const HomaHeader& homa,
                             uint8_t* l4);
// NDP's alone (encode_homa_header: Homa's).
void encode_ndp_header(const NdpHeader& n, uint8_t* l4);

// What the port said of the frame's IPv4 header checksum (RX checksum
// offload; PMD flags RTE_MBUF_F_RX_IP_CKSUM_*): unchecked, the decoder sums
// it; good, it does not; bad, the frame is refused (kBadChecksum) unless
// its checksum is 0, which nanopu takes as "not computed" either way.
enum class PortChecksum : uint8_t { kUnchecked, kGood, kBad };

// Parses and validates the header of a frame of frame_len bytes. On kOk,
// *payload_bytes is the transport payload length the IPv4 header declares
// (Ethernet padding after it is ignored).
[[nodiscard]] ParseError decode_frame_header(const uint8_t* frame, size_t frame_len,
                                             FrameHeader* out, size_t* payload_bytes,
                                             PortChecksum port = PortChecksum::kUnchecked);

// UDP encapsulation (docs/wire.md, "UDP encapsulation"): the io_uring backend
// sends a frame less its Ethernet and IPv4 headers as one UDP datagram to the
// frame's IPv4 destination, and gives a received datagram back those headers,
// made from the socket's peer and local addresses, so that the pipeline sees
// the frame any DPDK port would have delivered.
inline constexpr size_t kUdpEnvelopeBytes = kEthHeaderBytes + kIpv4HeaderBytes;  // 34
// Writes the 34 envelope bytes for a datagram of l4_bytes from src_ip to
// dst_ip. The IPv4 checksum is left 0 ("not computed", which decode accepts):
// the kernel has checked the datagram already.
void encode_udp_envelope(uint32_t src_ip, uint32_t dst_ip, const MacAddr& src_mac,
                         const MacAddr& dst_mac, uint8_t protocol, size_t l4_bytes, uint8_t* out);
// The IPv4 destination and protocol of a frame this host built (its 34
// envelope bytes, trusted: the packetizer wrote them).
struct UdpEnvelope {
  uint32_t dst_ip = 0;
  uint8_t protocol = 0;
};
[[nodiscard]] UdpEnvelope read_udp_envelope(const uint8_t* frame);
// A MAC for a peer known only by its IPv4 address (locally administered,
// 02:00 + the address), so that what the pipeline learns is stable.
[[nodiscard]] MacAddr mac_for_ipv4(uint32_t ip);

// What a switch or a fault-injecting wire reads of a frame without decoding
// or checking it (a glance at fixed offsets, for frames that are only
// passed on): the addresses, the TOS (Homa's priority) and the transport's
// flags, in the same byte for NDP and Homa.
struct FrameGlance {
  uint32_t src_ip = 0;
  uint32_t dst_ip = 0;
  uint8_t tos = 0;
  uint8_t flags = 0;
  uint8_t protocol = 0;  // the IPv4 protocol number (kIpProtoNdp, kIpProtoHoma)
  // A packet's identity among a sender's DATA packets: source address,
  // tx_msg_id, buf_ptr, pkt_offset (the same bytes in NDP and Homa).
  uint64_t packet_id = 0;

  [[nodiscard]] bool is_data() const { return (flags & kFlagData) != 0; }
  // DATA not yet trimmed: what a switch queues as data.
  [[nodiscard]] bool is_whole_data() const { return is_data() && (flags & kFlagChop) == 0; }
};
// False for a frame shorter than the 64-byte header or not IPv4.
[[nodiscard]] bool glance_frame(const uint8_t* frame, size_t frame_len, FrameGlance* out);
// Less than a glance, for steering each received frame (several NIC cores):
// the IPv4 source address alone. False for a frame too short to hold it or
// not IPv4.
[[nodiscard]] bool peek_src_ip(const uint8_t* frame, size_t frame_len, uint32_t* src_ip);
// A frame of no nanopu transport, the OS's (Config::os_port): not IPv4 (ARP,
// IPv6) or IPv4 of another protocol than NDP and Homa (ICMP, TCP, UDP).
// False for one too short to tell (the parser's to refuse).
[[nodiscard]] bool foreign_frame(const uint8_t* frame, size_t frame_len);

// A trimming switch keeps the first 72 bytes of a DATA frame (docs/wire.md).
inline constexpr size_t kTrimmedFrameBytes = 72;

// Turns the header of a DATA frame into that of its trimmed copy: sets CHOP,
// sets the IPv4 total length to what 72 bytes hold and fixes the checksum.
// The caller cuts the frame to kTrimmedFrameBytes.
void mark_trimmed(uint8_t* frame);

// Clears an NDP control frame's echoed send stamp (bytes 28-29 of the
// transport header): what a peer that echoes none sends (the fault wire's
// no_echo, nanopu/fault_spec.h).
void clear_echoed_stamp(uint8_t* frame);

// IPv4 header checksum (RFC 791) of the 20 bytes at ip_header, computed with
// the checksum field taken as zero; host order.
[[nodiscard]] uint16_t ipv4_header_checksum(const uint8_t* ip_header);

}  // namespace nanopu::wire
