// A chain's master (van Renesse & Schneider, OSDI'04 §3), itself a nanopu
// service (nanopu-server --app=chain-master): it pings every replica's
// control thread and
// - removes one that stops answering, once its read lease has run out, and
//   one that restarted (a new nonce: its store is empty) at once;
// - brings a replica that answers again — restarted, or back from a
//   partition — in at the end of the chain as a pending tail (its
//   predecessor sends it its snapshot; chain_replica.h), and ends the join
//   when it holds it, or takes it out again if it does not within
//   --chain_join_rounds rounds.
// Each change is a new epoch, sent to every replica (CONFIG) — to a joiner
// first, so it has emptied its store before anything is passed to it;
// clients learn it from the replicas (a refusal carries it). It never
// removes the last replica that holds the chain's state: a chain that has
// lost every one answers nothing rather than something wrong.
#pragma once

#include <cstdint>
#include <vector>

#include "apps/chain/chain_config.h"
#include "nanopu/thread.h"

namespace nanopu::apps {

struct ChainMasterOptions {
  std::vector<uint64_t> members;  // chain_node of each replica's data context, head first
  uint64_t ping_ns = 2'000'000;   // a round of pings this often
  uint32_t dead_pings = 3;        // missed in a row: suspected (then the lease is waited out)
  uint64_t lease_ns = 4'000'000;  // a tail's read lease from each ping (chain_replica.h)
  uint32_t join_rounds = 50;      // a join not done after this many rounds: the joiner is taken out
};

struct ChainMasterStats {
  uint64_t rounds = 0, removals = 0, restarts = 0, joins_started = 0, joins_done = 0, joins_abandoned = 0,
           configs_sent = 0, epoch = 0;
};

// Binds `context` and runs the chain until the runtime stops; false if the
// bind fails. Each configuration it makes is logged (stderr).
bool serve_chain_master(Thread& t, uint16_t context, const ChainMasterOptions& o, ChainMasterStats* stats);

}  // namespace nanopu::apps
