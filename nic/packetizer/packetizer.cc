#include "nic/packetizer/packetizer.h"

#include <cstring>

namespace nanopu {

const wire::FrameTemplate& Packetizer::template_for(uint32_t dst_ip, uint8_t protocol) const {
  if (dst_ip != template_ip_ || protocol != template_protocol_ ||
      neighbors_->generation() != template_generation_) {
    template_ = wire::make_frame_template(neighbors_->lookup(dst_ip), host_mac_, host_ip_, dst_ip,
                                          protocol);
    template_ip_ = dst_ip;
    template_protocol_ = protocol;
    template_generation_ = neighbors_->generation();
  }
  return template_;
}

void Packetizer::frame_data(rte_mbuf* m, uint32_t dst_ip, const wire::TransportHeader& h,
                            size_t payload_bytes) const {
  wire::encode_frame_from(template_for(dst_ip, h.protocol), h, payload_bytes,
                          rte_pktmbuf_mtod(m, uint8_t*));
}

rte_mbuf* Packetizer::make_control(uint32_t dst_ip, const wire::TransportHeader& h,
                                   const wire::ControlPayload* payload) const {
  rte_mbuf* m = rte_pktmbuf_alloc(pool_);
  if (m == nullptr) return nullptr;
  constexpr uint16_t kLen = wire::kFrameHeaderBytes + wire::kControlPayloadBytes;
  auto* p = reinterpret_cast<uint8_t*>(rte_pktmbuf_append(m, kLen));
  wire::encode_frame_from(template_for(dst_ip, h.protocol), h, wire::kControlPayloadBytes, p);
  if (payload != nullptr)
    std::memcpy(p + wire::kFrameHeaderBytes, payload->data(), payload->size());
  else
    std::memset(p + wire::kFrameHeaderBytes, 0, wire::kControlPayloadBytes);
  return m;
}

}  // namespace nanopu
