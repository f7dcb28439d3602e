// What taking a message costs a core beyond the application's own work, on
// a modelled clock: the seam through which the host's memory system
// (NEBULA (ISCA'20) §III; runtime/host/host_memory.h, its one
// implementation) charges each RPC its DRAM waits at the host's load. The
// scheduler asks it once per message taken; it knows nothing of the model.
#pragma once

#include <cstdint>

namespace nanopu::sched {

class MessageCharge {
 public:
  virtual ~MessageCharge() = default;
  // A message is taken at `now_ticks` (the modelled clock): the picoseconds
  // its core spends on top of the message's own work.
  virtual uint64_t ps_at_start(uint64_t now_ticks) = 0;
};

}  // namespace nanopu::sched
