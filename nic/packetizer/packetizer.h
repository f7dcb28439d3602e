// Egress framing (nanoPU draft §3.4 packet generator): fills the 64-byte header of
// DATA packets in place and builds control packets with the 64-byte zero
// payload the prototype's parser expects (docs/wire.md).
#pragma once

#include <rte_mbuf.h>
#include <rte_mempool.h>

#include <cstdint>

#include "nic/pipeline/neighbor_table.h"
#include "lib/wire/frame.h"

namespace nanopu {

class Packetizer {
 public:
  Packetizer(uint32_t host_ip, const wire::MacAddr& host_mac, const NeighborTable* neighbors,
             rte_mempool* pool)
      : host_ip_(host_ip), host_mac_(host_mac), neighbors_(neighbors), pool_(pool) {}

  // m's data begins with kFrameHeaderBytes of room followed by the payload.
  void frame_data(rte_mbuf* m, uint32_t dst_ip, const wire::TransportHeader& h, size_t payload_bytes) const;

  // A new control packet, or nullptr when the pool is empty.
  [[nodiscard]] rte_mbuf* make_control(uint32_t dst_ip, const wire::TransportHeader& h) const;

 private:
  [[nodiscard]] wire::FrameHeader header_for(uint32_t dst_ip, const wire::TransportHeader& h) const;

  uint32_t host_ip_;
  wire::MacAddr host_mac_;
  const NeighborTable* neighbors_;
  rte_mempool* pool_;
};

}  // namespace nanopu
