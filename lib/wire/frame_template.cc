#include "lib/wire/frame_template.h"

#include <cassert>
#include <cstring>

#include "lib/wire/big_endian.h"

namespace nanopu::wire {

FrameTemplate make_frame_template(const MacAddr& dst_mac, const MacAddr& src_mac, uint32_t src_ip,
                                  uint32_t dst_ip, uint8_t protocol, uint8_t ttl) {
  assert(protocol == kIpProtoNdp || protocol == kIpProtoHoma);  // no default protocol
  FrameTemplate t;
  uint8_t* b = t.bytes;
  std::memcpy(b, dst_mac.data(), 6);
  std::memcpy(b + 6, src_mac.data(), 6);
  be::put16(b + 12, kEtherTypeIpv4);
  uint8_t* ip = b + kEthHeaderBytes;
  ip[0] = 0x45;  // version 4, IHL 5; ip[1] (TOS), total length, id, fragment, checksum: 0
  ip[8] = ttl;
  ip[9] = protocol;
  be::put32(ip + 12, src_ip);
  be::put32(ip + 16, dst_ip);
  // Version/IHL (TOS added per packet), TTL/protocol, the two addresses.
  t.fixed_sum = (0x45u << 8) + (uint32_t{ttl} << 8 | protocol) + (src_ip >> 16) +
                (src_ip & 0xffff) + (dst_ip >> 16) + (dst_ip & 0xffff);
  return t;
}

void encode_frame_from(const FrameTemplate& tmpl, const TransportHeader& t, size_t payload_bytes,
                       uint8_t* out) {
  std::memcpy(out, tmpl.bytes, FrameTemplate::kBytes);
  uint8_t* ip = out + kEthHeaderBytes;
  const auto total =
      static_cast<uint32_t>(kIpv4HeaderBytes + kTransportHeaderBytes + payload_bytes);
  ip[1] = t.tos;
  be::put16(ip + 2, static_cast<uint16_t>(total));
  uint32_t sum = tmpl.fixed_sum + t.tos + (total & 0xffff);
  sum = (sum & 0xffff) + (sum >> 16);
  sum = (sum & 0xffff) + (sum >> 16);
  be::put16(ip + 10, static_cast<uint16_t>(~sum));
  uint8_t* l4 = ip + kIpv4HeaderBytes;
  if (t.protocol == kIpProtoHoma)
    encode_homa_header(t.homa, l4);
  else
    encode_ndp_header(t.ndp, l4);
}

}  // namespace nanopu::wire
