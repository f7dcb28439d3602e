// What a run of handlers asked for, made into buffers: the host message (a
// received message's chain, MsgMeta naming the original's source) and a
// send (a one-packet TX message from the context). On whichever core ran
// the handlers: the pool's per-lcore cache serves it.
#pragma once

#include <rte_mbuf.h>

#include <cstdint>

#include "nic/spin/spin_run.h"

namespace nanopu {

// Null if the pool is out of buffers.
[[nodiscard]] rte_mbuf* make_host_message(rte_mempool* pool, const SpinRun& run, uint64_t now);
[[nodiscard]] rte_mbuf* make_send(rte_mempool* pool, const SpinRun& run, const SpinSend& send,
                                  uint16_t src_context, uint64_t now);

}  // namespace nanopu
