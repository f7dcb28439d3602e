// Which NIC core owns a peer when a host runs several (Config::nic_lcores;
// docs/design.md §7, "Several NIC cores"). Both sides of the contract ask:
// a NIC core that receives a frame from the peer hands it to the owner, and
// a thread writing a message to the peer puts it in the owner's TX FIFO. So
// one core holds all of a peer's transport state (message ids, liveness,
// held ACKs, reassembly) and no transport state is shared between cores.
#pragma once

#include <cstdint>

#include "nanopu/seeded_draw.h"
#include "nanopu/limits.h"

namespace nanopu {

// The owner of peer_ip among nic_cores NIC cores (1: always 0). The peer's
// address mixed (so that consecutive addresses spread) and scaled into
// [0, nic_cores) by a multiply, not a modulo (no division per frame).
[[nodiscard]] constexpr uint32_t nic_core_for_peer(uint32_t peer_ip, uint32_t nic_cores) {
  return static_cast<uint32_t>(((mix64(peer_ip) >> 32) * nic_cores) >> 32);
}

}  // namespace nanopu
