#include "nic/packetizer/packetizer.h"

#include <cstring>

namespace nanopu {

wire::FrameHeader Packetizer::header_for(uint32_t dst_ip, const wire::TransportHeader& h) const {
  wire::FrameHeader f;
  f.dst_mac = neighbors_->lookup(dst_ip);
  f.src_mac = host_mac_;
  f.src_ip = host_ip_;
  f.dst_ip = dst_ip;
  f.protocol = h.protocol;
  f.tos = h.tos;
  if (h.protocol == wire::kIpProtoHoma) f.homa = h.homa;
  else f.ndp = h.ndp;
  return f;
}

void Packetizer::frame_data(rte_mbuf* m, uint32_t dst_ip, const wire::TransportHeader& h,
                            size_t payload_bytes) const {
  wire::encode_frame_header(header_for(dst_ip, h), payload_bytes, rte_pktmbuf_mtod(m, uint8_t*));
}

rte_mbuf* Packetizer::make_control(uint32_t dst_ip, const wire::TransportHeader& h) const {
  rte_mbuf* m = rte_pktmbuf_alloc(pool_);
  if (m == nullptr) return nullptr;
  constexpr uint16_t kLen = wire::kFrameHeaderBytes + wire::kControlPayloadBytes;
  auto* p = reinterpret_cast<uint8_t*>(rte_pktmbuf_append(m, kLen));
  wire::encode_frame_header(header_for(dst_ip, h), wire::kControlPayloadBytes, p);
  std::memset(p + wire::kFrameHeaderBytes, 0, wire::kControlPayloadBytes);
  return m;
}

}  // namespace nanopu
