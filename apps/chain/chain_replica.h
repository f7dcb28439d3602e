// A chain replica as a nanoPU thread (docs/apps.md, "Chain replication"):
// bound to one context, it stores WRITEs and forwards them down the chain,
// acknowledges at the tail, and answers READs from its store.
#pragma once

#include <cstdint>

#include "apps/chain/chain_store.h"
#include "nanopu/thread.h"

namespace nanopu::apps {

struct ChainReplicaStats {
  uint64_t writes = 0;         // WRITEs received
  uint64_t stale_writes = 0;   // of which not applied: seq not newer than the key's
  uint64_t forwarded = 0;      // WRITEs sent on to the next replica
  uint64_t acks = 0;           // WRITEs acknowledged to the client (as the tail)
  uint64_t reads = 0;
  uint64_t read_misses = 0;
  uint64_t bad = 0;            // malformed, answered kChainBad
  uint64_t dropped = 0;        // too short to answer
};

// Binds `context` and serves until the runtime stops; false if the bind fails.
bool serve_chain(Thread& t, uint16_t context, uint8_t priority, ChainStore* store,
                 ChainReplicaStats* stats);

}  // namespace nanopu::apps
