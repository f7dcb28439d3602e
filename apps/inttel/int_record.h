// INT telemetry records (In-band Network Telemetry Dataplane Specification
// v1.0, §4: the INT-MD shim header over TCP/UDP, the metadata header and
// per-hop metadata), as a collector receives them from an INT sink. nanopu
// supports the subset below and carries it in 64-bit words:
//
//   flow 0   src_ip << 32 | dst_ip
//   flow 1   src_port << 48 | dst_port << 32 | proto       (as the classifier's header word 1)
//   shim     the 4-byte INT shim header in the low 32 bits: type (1 = INT-MD) << 24 |
//            length << 8 (4-byte words of INT data after the UDP/TCP header: shim 1 +
//            metadata header 3 + hop_ml x hops) | DSCP
//   md       the first 8 bytes of the metadata header as a big-endian word: ver (4 bits,
//            1 for v1.0) << 60 | rep << 58 | c << 57 | e << 56 | m << 55 |
//            hop_ml (5 bits) << 40 | remaining_hop_cnt << 32 | instruction bitmap << 16
//   hops     2 words per hop, newest hop first (INT pushes onto a stack):
//            switch_id << 32 | ingress_port << 16 | egress_port,
//            hop_latency << 32 | queue_id << 24 | queue_occupancy (24 bits)
//
// Subset: instruction bitmap exactly kIntInstructions (bits 0-3: switch id,
// level-1 port ids, hop latency, queue id and occupancy), hop_ml 4, 1..16
// hops. Anything else is rejected, never guessed at.
#pragma once

#include <cstdint>

namespace nanopu::apps {

inline constexpr uint8_t kIntVersion = 1;
inline constexpr uint8_t kIntShimTypeMd = 1;
inline constexpr uint16_t kIntInstructions = 0xf000;
inline constexpr uint8_t kIntHopMl = 4;
inline constexpr uint32_t kIntMaxHops = 16;
inline constexpr uint32_t kIntHeaderWords = 4;  // flow 0, flow 1, shim, md

[[nodiscard]] constexpr uint64_t int_shim_word(uint32_t hops) {
  return uint64_t{kIntShimTypeMd} << 24 | uint64_t{4 + kIntHopMl * hops} << 8;
}
[[nodiscard]] constexpr uint64_t int_md_word(uint32_t remaining_hops) {
  return uint64_t{kIntVersion} << 60 | uint64_t{kIntHopMl} << 40 | uint64_t{remaining_hops & 0xff} << 32 |
         uint64_t{kIntInstructions} << 16;
}

struct IntHop {
  uint32_t switch_id = 0;
  uint16_t ingress_port = 0, egress_port = 0;
  uint32_t hop_latency = 0;  // ns, as the switch measured it
  uint8_t queue_id = 0;
  uint32_t queue_occupancy = 0;  // 24 bits
};

[[nodiscard]] constexpr uint64_t int_hop_word0(const IntHop& h) {
  return uint64_t{h.switch_id} << 32 | uint64_t{h.ingress_port} << 16 | h.egress_port;
}
[[nodiscard]] constexpr uint64_t int_hop_word1(const IntHop& h) {
  return uint64_t{h.hop_latency} << 32 | uint64_t{h.queue_id} << 24 | (h.queue_occupancy & 0xffffff);
}

}  // namespace nanopu::apps
