// The pair of FIFOs that stand in for one thread's netRX/netTX registers
// (nanoPU §2.1): the NIC core is the only producer of rx and the only consumer
// of tx; the thread's worker core is the other side of each.
#pragma once

#include <atomic>
#include <cstdint>

#include "lib/ring/msg_fifo.h"

namespace nanopu {

struct ThreadFifos {
  MsgFifo rx;  // NIC core → thread: complete messages
  MsgFifo tx;  // thread → NIC core: complete messages to send
  uint32_t thread_id = 0;
  // The context (L4 port) the thread is bound to; written once by bind().
  std::atomic<uint16_t> context{0};
};

}  // namespace nanopu
