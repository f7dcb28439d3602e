#include "lib/wire/frame.h"

#include <rte_ip.h>

#include <cstring>

#include "lib/wire/big_endian.h"
#include "lib/wire/frame_template.h"
#include "nanopu/stats.h"

namespace nanopu::wire {
namespace {

// Byte offsets inside the 64-byte header (docs/wire.md).
constexpr size_t kIpOff = kEthHeaderBytes;
constexpr size_t kL4Off = kEthHeaderBytes + kIpv4HeaderBytes;

using be::get16;
using be::get32;
using be::put16;
using be::put32;

constexpr uint8_t kKnownNdpFlags =
    kFlagData | kFlagAck | kFlagNack | kFlagPull | kFlagChop | kFlagGone | kFlagReject;
constexpr uint8_t kControlFlags = kFlagAck | kFlagNack | kFlagPull | kFlagGone | kFlagReject;

}  // namespace

static_assert(static_cast<size_t>(ParseError::kCount) == kParseErrorKinds,
              "one NicCounters::rx_parse_errors counter per parse error");

std::string_view parse_error_name(ParseError e) {
  return parse_error_counter_name(static_cast<size_t>(e));
}

namespace {
// Ones'-complement sum of the IPv4 header's ten 16-bit words, folded to 16
// bits, in memory byte order (RFC 1071: the sum is byte-order independent).
// Five 32-bit loads instead of rte_raw_cksum's generic loop and a copy: this
// runs twice per packet (encode and decode) on the NIC core.
inline uint32_t ipv4_header_sum(const uint8_t* ip) {
  uint64_t sum = 0;
  for (int i = 0; i < 5; ++i) {
    uint32_t w;
    std::memcpy(&w, ip + 4 * i, 4);
    sum += w;
  }
  sum = (sum & 0xffffffff) + (sum >> 32);
  sum = (sum & 0xffff) + (sum >> 16);
  sum = (sum & 0xffff) + (sum >> 16);
  sum = (sum & 0xffff) + (sum >> 16);
  return static_cast<uint32_t>(sum);
}
}  // namespace

uint16_t ipv4_header_checksum(const uint8_t* ip_header) {
  uint8_t copy[kIpv4HeaderBytes];
  std::memcpy(copy, ip_header, sizeof copy);
  copy[10] = copy[11] = 0;
  // The folded complement, stored as-is, is the big-endian checksum field.
  const auto stored = static_cast<uint16_t>(~ipv4_header_sum(copy));
  return be::to_from_be(stored);
}

bool glance_frame(const uint8_t* frame, size_t frame_len, FrameGlance* out) {
  if (frame_len < kFrameHeaderBytes || get16(frame + 12) != kEtherTypeIpv4) return false;
  const uint8_t* ip = frame + kIpOff;
  const uint8_t* t = frame + kEthHeaderBytes + kIpv4HeaderBytes;
  out->tos = ip[1];
  out->src_ip = get32(ip + 12);
  out->dst_ip = get32(ip + 16);
  out->flags = t[0];
  out->protocol = ip[9];
  // pkt_offset is transport byte 7 in both; tx_msg_id and buf_ptr follow
  // at 10 and 12 in NDP, at 11 and 13 in Homa (docs/wire.md).
  const size_t ids = ip[9] == kIpProtoHoma ? 11 : 10;
  out->packet_id =
      ((uint64_t{out->src_ip} << 32) ^ (uint64_t{get16(t + ids)} << 16 | get16(t + ids + 2))) * 131 + t[7];
  return true;
}

bool peek_src_ip(const uint8_t* frame, size_t frame_len, uint32_t* src_ip) {
  if (frame_len < kIpOff + 16 || get16(frame + 12) != kEtherTypeIpv4) return false;
  *src_ip = get32(frame + kIpOff + 12);
  return true;
}

bool foreign_frame(const uint8_t* frame, size_t frame_len) {
  if (frame_len < kEthHeaderBytes) return false;
  if (get16(frame + 12) != kEtherTypeIpv4) return true;
  return frame_len > kIpOff + 9 && frame[kIpOff + 9] != kIpProtoNdp && frame[kIpOff + 9] != kIpProtoHoma;
}

void mark_trimmed(uint8_t* frame) {
  frame[kEthHeaderBytes + kIpv4HeaderBytes] |= kFlagChop;
  uint8_t* ip = frame + kEthHeaderBytes;
  put16(ip + 2, static_cast<uint16_t>(kTrimmedFrameBytes - kEthHeaderBytes));
  put16(ip + 10, ipv4_header_checksum(ip));
}

void clear_echoed_stamp(uint8_t* frame) { put16(frame + kL4Off + 28, 0); }

void encode_frame_header(const FrameHeader& h, size_t payload_bytes, uint8_t* out) {
  const uint32_t fixed_sum =
      write_fixed_envelope(h.dst_mac, h.src_mac, h.src_ip, h.dst_ip, h.protocol, h.ttl, out);
  finish_envelope(fixed_sum, h.tos, payload_bytes, out);
  encode_transport_header(h.protocol, h.ndp, h.homa, out + kL4Off);
}

void encode_transport_header(uint8_t protocol, const NdpHeader& ndp, const HomaHeader& homa,
                             uint8_t* l4) {
  if (protocol == kIpProtoHoma)
    encode_homa_header(homa, l4);
  else
    encode_ndp_header(ndp, l4);
}

void encode_ndp_header(const NdpHeader& n, uint8_t* l4) {
  l4[0] = n.flags;
  put16(l4 + 1, n.src_context);
  put16(l4 + 3, n.dst_context);
  put16(l4 + 5, n.msg_len);
  l4[7] = n.pkt_offset;
  put16(l4 + 8, n.pull_offset);
  put16(l4 + 10, n.tx_msg_id);
  put16(l4 + 12, n.buf_ptr);
  l4[14] = n.buf_size_class;
  put16(l4 + 15, n.incarnation);
  put16(l4 + 17, n.dst_incarnation);
  l4[23] = n.options;
  if (!(n.flags & kFlagData) && (n.options & kOptAckBitmap)) {
    put32(l4 + 19, static_cast<uint32_t>(n.acked_bitmap));
    put32(l4 + 24, static_cast<uint32_t>(n.acked_bitmap >> 32));
  } else {
    put32(l4 + 19, n.core_time);
    put16(l4 + 24, n.acked_msg_id);
    put16(l4 + 26, n.acked_buf_ptr);
  }
  put16(l4 + 28, n.tx_stamp);
}

void encode_udp_envelope(uint32_t src_ip, uint32_t dst_ip, const MacAddr& src_mac,
                         const MacAddr& dst_mac, uint8_t protocol, size_t l4_bytes, uint8_t* out) {
  std::memcpy(out, dst_mac.data(), 6);
  std::memcpy(out + 6, src_mac.data(), 6);
  put16(out + 12, kEtherTypeIpv4);
  uint8_t* ip = out + kIpOff;
  ip[0] = 0x45;
  ip[1] = 0;
  put16(ip + 2, static_cast<uint16_t>(kIpv4HeaderBytes + l4_bytes));
  put16(ip + 4, 0);
  put16(ip + 6, 0);
  ip[8] = kDefaultTtl;
  ip[9] = protocol;
  put16(ip + 10, 0);
  put32(ip + 12, src_ip);
  put32(ip + 16, dst_ip);
}

UdpEnvelope read_udp_envelope(const uint8_t* frame) {
  const uint8_t* ip = frame + kIpOff;
  return {get32(ip + 16), ip[9]};
}

MacAddr mac_for_ipv4(uint32_t ip) {
  return {0x02, 0x00, static_cast<uint8_t>(ip >> 24), static_cast<uint8_t>(ip >> 16),
          static_cast<uint8_t>(ip >> 8), static_cast<uint8_t>(ip)};
}

namespace {

// The Ethernet and IPv4 envelope: checked, and its fields into *out;
// *payload: the transport's payload bytes the IPv4 length claims.
ParseError decode_envelope(const uint8_t* frame, size_t frame_len, FrameHeader* out, size_t* payload,
                           PortChecksum port) {
  if (frame_len < kFrameHeaderBytes) return ParseError::kShortFrame;
  if (get16(frame + 12) != kEtherTypeIpv4) return ParseError::kNotIpv4;
  const uint8_t* ip = frame + kIpOff;
  if (ip[0] != 0x45) return ParseError::kBadIpHeader;
  const uint16_t frag = get16(ip + 6);
  if ((frag & 0x3fff) != 0) return ParseError::kBadIpHeader;  // MF set or offset != 0
  if (ip[8] == 0) return ParseError::kBadIpHeader;
  if (ip[9] != kIpProtoNdp && ip[9] != kIpProtoHoma) return ParseError::kUnknownProtocol;
  const uint16_t csum = get16(ip + 10);
  // A correct header sums, checksum included, to 0xffff (RFC 1071); a port
  // that checked it already said which.
  if (csum != 0 && port != PortChecksum::kGood &&
      (port == PortChecksum::kBad || ipv4_header_sum(ip) != 0xffff))
    return ParseError::kBadChecksum;
  const uint16_t total = get16(ip + 2);
  if (total < kIpv4HeaderBytes + kTransportHeaderBytes) return ParseError::kBadLength;
  if (size_t{total} + kEthHeaderBytes > frame_len) return ParseError::kBadLength;
  std::memcpy(out->dst_mac.data(), frame, 6);
  std::memcpy(out->src_mac.data(), frame + 6, 6);
  out->tos = ip[1];
  out->ttl = ip[8];
  out->protocol = ip[9];
  out->ip_total_len = total;
  out->src_ip = get32(ip + 12);
  out->dst_ip = get32(ip + 16);
  *payload = total - kIpv4HeaderBytes - kTransportHeaderBytes;
  return ParseError::kOk;
}

// Homa's header at l4, checked against the frame's tos and payload.
ParseError decode_homa_fields(const uint8_t* l4, uint8_t tos, size_t payload, HomaHeader* h) {
  decode_homa_header(l4, h);
  if (tos >= kHomaPriorities) return ParseError::kBadPriority;
  if (!homa_flags_valid(h->flags)) return ParseError::kBadFlags;
  if (h->flags & kHomaData) {
    if (h->msg_len == 0) return ParseError::kBadLength;
    const size_t expected = segment_payload_bytes(h->msg_len, h->pkt_offset);
    if (expected == 0) return ParseError::kBadLength;
    if (!(h->flags & kHomaChop) && payload != expected) return ParseError::kBadLength;
  }
  return ParseError::kOk;
}

// NDP's header at l4 (docs/wire.md), checked against the payload.
ParseError decode_ndp_fields(const uint8_t* l4, size_t payload, NdpHeader* n) {
  n->flags = l4[0];
  n->src_context = get16(l4 + 1);
  n->dst_context = get16(l4 + 3);
  n->msg_len = get16(l4 + 5);
  n->pkt_offset = l4[7];
  n->pull_offset = get16(l4 + 8);
  n->tx_msg_id = get16(l4 + 10);
  n->buf_ptr = get16(l4 + 12);
  n->buf_size_class = l4[14];
  n->incarnation = get16(l4 + 15);
  n->dst_incarnation = get16(l4 + 17);
  n->options = l4[23];
  if (!(n->flags & kFlagData) && (n->options & kOptAckBitmap)) {
    n->core_time = 0;
    n->acked_msg_id = n->acked_buf_ptr = 0;
    n->acked_bitmap = uint64_t{get32(l4 + 24)} << 32 | get32(l4 + 19);
  } else {
    n->core_time = get32(l4 + 19);
    n->acked_msg_id = get16(l4 + 24);
    n->acked_buf_ptr = get16(l4 + 26);
    n->acked_bitmap = 0;
  }
  n->tx_stamp = get16(l4 + 28);
  if (n->flags == 0 || (n->flags & ~kKnownNdpFlags) != 0) return ParseError::kBadFlags;
  if (n->flags & kFlagData) {
    if (n->flags & kControlFlags) return ParseError::kBadFlags;
    if (n->msg_len == 0) return ParseError::kBadLength;
    const size_t expected = segment_payload_bytes(n->msg_len, n->pkt_offset);
    if (expected == 0) return ParseError::kBadLength;  // pkt_offset past the message
    // A trimmed (CHOP) packet lost its payload in a switch; only the header counts.
    if (!(n->flags & kFlagChop) && payload != expected) return ParseError::kBadLength;
  } else if (n->flags & kFlagChop) {
    return ParseError::kBadFlags;  // CHOP only makes sense on a DATA packet
  } else if ((n->flags & kFlagReject) && !(n->flags & kFlagNack)) {
    return ParseError::kBadFlags;  // REJECT qualifies a NACK
  }
  return ParseError::kOk;
}

}  // namespace

ParseError decode_frame_header(const uint8_t* frame, size_t frame_len, FrameHeader* out,
                               size_t* payload_bytes, PortChecksum port) {
  size_t payload = 0;
  if (const ParseError e = decode_envelope(frame, frame_len, out, &payload, port); e != ParseError::kOk)
    return e;
  const uint8_t* l4 = frame + kL4Off;
  const ParseError e = out->protocol == kIpProtoHoma ? decode_homa_fields(l4, out->tos, payload, &out->homa)
                                                     : decode_ndp_fields(l4, payload, &out->ndp);
  if (e == ParseError::kOk) *payload_bytes = payload;
  return e;
}

}  // namespace nanopu::wire
