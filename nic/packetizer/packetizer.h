// Egress framing (nanoPU draft §3.4 packet generator): fills the 64-byte header of
// DATA packets in place and builds control packets with the 64-byte zero
// payload the prototype's parser expects (docs/wire.md). Each frame starts
// from a prebuilt Ethernet/IPv4 template for its peer and protocol
// (lib/wire/frame_template.h), kept for the last peer: packets go out in
// runs to one peer, as they come in.
#pragma once

#include <rte_mbuf.h>
#include <rte_mempool.h>

#include <cstdint>

#include "lib/wire/ack_list.h"
#include "lib/wire/frame.h"
#include "lib/wire/frame_template.h"
#include "nic/pipeline/neighbor_table.h"

namespace nanopu {

class Packetizer {
 public:
  Packetizer(uint32_t host_ip, const wire::MacAddr& host_mac, const NeighborTable* neighbors,
             rte_mempool* pool)
      : host_ip_(host_ip), host_mac_(host_mac), neighbors_(neighbors), pool_(pool) {}

  // m's data begins with kFrameHeaderBytes of room followed by the payload.
  void frame_data(rte_mbuf* m, uint32_t dst_ip, const wire::TransportHeader& h, size_t payload_bytes) const;

  // A new control packet, or nullptr when the pool is empty.
  // payload: what it carries (an NDP ACK's list), or null for zeros.
  [[nodiscard]] rte_mbuf* make_control(uint32_t dst_ip, const wire::TransportHeader& h,
                                       const wire::ControlPayload* payload = nullptr) const;

 private:
  // The template for dst_ip in `protocol`, rebuilt when the peer, the
  // protocol or what the neighbor table knows changed.
  [[nodiscard]] const wire::FrameTemplate& template_for(uint32_t dst_ip, uint8_t protocol) const;

  uint32_t host_ip_;
  wire::MacAddr host_mac_;
  const NeighborTable* neighbors_;
  rte_mempool* pool_;
  // The last template built (mutable: a cache behind const framing calls).
  mutable wire::FrameTemplate template_;
  mutable uint32_t template_ip_ = 0;
  mutable uint8_t template_protocol_ = 0;  // 0: none built yet
  mutable uint64_t template_generation_ = 0;
};

}  // namespace nanopu
