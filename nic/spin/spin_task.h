// One message's trip through its execution context: what the NIC core
// hands over (the message, its context entry, its slot) and what comes
// back once the handlers ran (the host message, the sends, whether the
// original goes on to the thread) — on the NIC core itself, or through an
// HPU lcore's rings (hpu_core.h). The NIC core applies it (SpinEngine::apply).
#pragma once

#include <rte_mbuf.h>

#include <cstdint>

#include "lib/contract/context_table.h"
#include "nanopu/spin.h"

namespace nanopu {

struct SpinStream;

// What a task runs: a whole message (a one-packet one, or one whose packets
// were not streamed), or one step of a message streamed as its packets
// arrive (nic/spin/spin_stream.h): its first packet (the header handler,
// then its payload handler), another packet, its completion.
enum class SpinStep : uint8_t { kWhole, kOpen, kPacket, kClose };

struct SpinTask {
  // In: from the NIC core.
  SpinStep step = SpinStep::kWhole;
  rte_mbuf* msg = nullptr;         // the message (kWhole, kClose) or the packet (kOpen, kPacket)
  SpinStream* stream = nullptr;    // but kWhole
  uint8_t index = 0;               // the packet's (kOpen, kPacket)
  bool packet_ref = false;         // the task holds a reference to its packet (an HPU's)
  ContextEntry* dst = nullptr;
  void* slot = nullptr;            // the engine's, for its context
  // Out: the original, to the thread (forwarded or bypassed) or freed
  // (msg null, its segment count kept for the NIC's accounting).
  uint16_t freed_segs = 0;
  bool bypass = false;             // the context is disabled: msg goes on untouched
  spin::Fault new_fault = spin::Fault::kNone;  // this message disabled it
  uint8_t lost = 0;                // outputs with no buffer
  rte_mbuf* host = nullptr;        // the host message, or null
  uint8_t n_sends = 0;
  rte_mbuf* sends[spin::kMaxSendsPerMessage] = {};

  // A streamed message's packet step: msg is a packet the transport still holds.
  [[nodiscard]] bool on_packet() const { return step == SpinStep::kOpen || step == SpinStep::kPacket; }
};

}  // namespace nanopu
