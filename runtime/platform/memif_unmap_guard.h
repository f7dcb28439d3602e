// Keeps a port's PMD from unmapping memory under a polling thread: for
// net_memif, whose interrupt thread unmaps a link's rings when the peer goes
// away while a poller may still be reading them (nic/link/burst_fence.h has
// the race and the fence; docs/design.md §9, "memif's teardown, fenced").
#pragma once

#include <cstdint>

namespace nanopu {

// If `port_id`'s PMD is one that needs it, from now on every burst on a
// DPDK port is marked and an unmap on DPDK's interrupt thread waits for the
// bursts in progress. Call before the port is started. Idempotent.
void guard_unmaps_of(uint16_t port_id);

}  // namespace nanopu
