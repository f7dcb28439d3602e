// Steering between several NIC cores (docs/design.md §7, "Several NIC
// cores"): each peer is owned by one NIC core (nic_core_for_peer), which
// alone holds its transport state. A frame received on another core — every
// frame but core 0's share on a port with one receive queue, or a frame a
// NIC's RSS put on a queue its owner does not poll — goes to the owner's
// inbox, a multi-producer FIFO the owner drains at the start of its receive.
// A hop of one ring enqueue and dequeue per frame, paid only by frames that
// arrive on the wrong core.
#pragma once

#include <rte_mbuf.h>

#include <array>
#include <cstdint>

#include "lib/contract/msg_fifo.h"
#include "lib/contract/nic_cores.h"
#include "nanopu/stats.h"

namespace nanopu {

class PeerDispatch {
 public:
  // inboxes[k]: NIC core k's inbox, for k < nic_cores.
  PeerDispatch(uint32_t self, uint32_t nic_cores, const std::array<MsgFifo*, kMaxNicCores>& inboxes)
      : self_(self), nic_cores_(nic_cores), inboxes_(inboxes) {}

  [[nodiscard]] bool active() const { return nic_cores_ > 1; }

  // Of rx[0..n), keeps this core's frames (compacted to the front), passes
  // the others to their owners' inboxes, then appends frames from this
  // core's inbox up to `room` in all. Returns how many rx holds now.
  [[nodiscard]] uint16_t hand_off(rte_mbuf** rx, uint16_t n, uint16_t room, NicCounters* counters);

  // The NIC core that owns the frame's sender: its IPv4 source address's
  // owner; this core for anything else (the pipeline drops and counts it).
  [[nodiscard]] uint32_t owner(const rte_mbuf* m) const;

 private:
  static constexpr uint16_t kMaxBurst = 64;
  uint32_t self_;
  uint32_t nic_cores_;
  std::array<MsgFifo*, kMaxNicCores> inboxes_;
};

}  // namespace nanopu
