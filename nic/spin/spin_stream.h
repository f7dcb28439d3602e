// A multi-packet message streamed through its execution context's handlers
// as its packets arrive, as sPIN has it ("sPIN: High-performance streaming
// Processing in the Network", §II; PsPIN, ISCA'21, §III): the header
// handler when its first packet is in, a payload handler on each packet as
// the transport keeps it (a packet that arrived before the first waits for
// it in the reassembly buffer), the completion once the transport hands
// the whole message over. Its own Handle and scratch, since several
// messages of one context may be arriving at once. SpinEngine keeps a pool
// of them; a message with none free runs whole at its completion.
#pragma once

#include <rte_mbuf.h>

#include <cstdint>
#include <memory>

#include "nanopu/spin.h"
#include "nic/spin/spin_run.h"

namespace nanopu {

struct SpinStream {
  uint16_t id = 0;              // its place in the engine's pool (InboundState::spin_stream - 1)
  void* slot = nullptr;         // the engine's, for its context
  rte_mbuf* head = nullptr;     // its packet 0: the whole message's first segment
  spin::MessageInfo info;
  SpinRun run;                  // from the header handler to the completion
  std::unique_ptr<uint8_t[]> scratch;
  uint32_t scratch_bytes = 0;   // allocated
  uint32_t in_flight = 0;       // its tasks not yet applied (HPU lcores)
  // No step comes after those in flight: its completion is on its way, or
  // the transport freed it incomplete. Back to the pool when they are applied.
  bool ended = false;
};

}  // namespace nanopu
