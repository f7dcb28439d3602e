// A prebuilt Ethernet + IPv4 header per peer and protocol (issue 37 item 2):
// everything a frame from this host to one peer in one protocol shares,
// copied whole, then the few bytes each packet changes (TOS, total length,
// checksum) and its transport header written over it. The checksum is the
// template's sum of the fixed 16-bit words plus the changing ones (RFC 1071:
// a ones'-complement sum may be taken in any order), so a packet never reads
// back what it just stored. encode_frame_header (frame.h) writes its
// frames with the same two halves, in place.
#pragma once

#include <cstddef>
#include <cstdint>

#include "lib/wire/frame.h"

namespace nanopu::wire {

struct FrameTemplate {
  static constexpr size_t kBytes = kEthHeaderBytes + kIpv4HeaderBytes;  // 34
  // Ethernet, then IPv4 with TOS, total length and checksum zero.
  alignas(8) uint8_t bytes[kBytes] = {};
  uint32_t fixed_sum = 0;  // unfolded sum of the IPv4 words that do not change
};

[[nodiscard]] FrameTemplate make_frame_template(const MacAddr& dst_mac, const MacAddr& src_mac,
                                                uint32_t src_ip, uint32_t dst_ip, uint8_t protocol,
                                                uint8_t ttl = kDefaultTtl);

// The two halves of every frame's Ethernet/IPv4 bytes, shared by the
// template (written once per peer) and encode_frame_header (written in
// place for one frame): the 34 bytes that do not change, with TOS, total
// length and checksum zero, returning the sum of the fixed IPv4 words; then
// this packet's TOS, total length and checksum over them.
uint32_t write_fixed_envelope(const MacAddr& dst_mac, const MacAddr& src_mac, uint32_t src_ip,
                              uint32_t dst_ip, uint8_t protocol, uint8_t ttl, uint8_t* out);
void finish_envelope(uint32_t fixed_sum, uint8_t tos, size_t payload_bytes, uint8_t* out);

// Writes the 64 header bytes of a frame carrying payload_bytes after them:
// the template's, then t.tos, the length, the checksum and t's header.
void encode_frame_from(const FrameTemplate& tmpl, const TransportHeader& t, size_t payload_bytes,
                       uint8_t* out);

}  // namespace nanopu::wire
