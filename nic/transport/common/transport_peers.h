// What a NIC transport knows of its peers, kept once and lent to both its
// halves (transport_shell.h): a sender and a receiver each take a pointer.
#pragma once

#include <cstdint>

#include "nanopu/stats.h"
#include "nic/transport/common/peer_liveness.h"
#include "nic/transport/common/peer_runs.h"
#include "nic/transport/common/rtt_estimator.h"
#include "nic/transport/common/transport_params.h"

namespace nanopu {

// A transport's peers, as its sender and its receiver both see them: each
// peer's run (docs/wire.md, "Sender incarnation"), whether it answers
// ("Slow and silent peers"), its round trips, and the ACKs held for a DATA
// packet to it to carry (held_acks.h). One of each per transport.
template <typename Held>
struct TransportPeers {
  TransportPeers(const TransportParams& c, uint32_t held_acks, uint64_t hold_ticks, NicCounters* counters)
      : rtt(c.rto_ticks, c.rto_max()), held(held_acks, hold_ticks, counters) {}
  PeerRuns runs;
  PeerLiveness live;
  RttEstimator rtt;
  Held held;
};

}  // namespace nanopu
