// An NDP frame for the switch tests (tools/switch's and model/network's): a
// 64-byte header from src to dst with these flags, offset and TOS, then
// `payload` bytes of 0xab, in an mbuf of `pool`. The message length is the
// largest, so any offset is a packet of it to a switch's eye.
#pragma once

#include <rte_mbuf.h>

#include <cstdint>
#include <cstring>

#include "lib/wire/frame.h"

namespace nanopu::testing {

inline rte_mbuf* switch_frame(rte_mempool* pool, uint32_t src, uint32_t dst, uint8_t flags, uint16_t payload,
                              uint8_t pkt_offset = 0, uint8_t tos = 0) {
  rte_mbuf* m = rte_pktmbuf_alloc(pool);
  auto* p = reinterpret_cast<uint8_t*>(rte_pktmbuf_append(m, wire::kFrameHeaderBytes + payload));
  wire::FrameHeader h;
  h.protocol = wire::kIpProtoNdp;
  h.tos = tos;
  h.src_ip = src;
  h.dst_ip = dst;
  h.ndp.flags = flags;
  h.ndp.msg_len = 64 * 1024 - 1;
  h.ndp.pkt_offset = pkt_offset;
  wire::encode_frame_header(h, payload, p);
  std::memset(p + wire::kFrameHeaderBytes, 0xab, payload);
  return m;
}

}  // namespace nanopu::testing
