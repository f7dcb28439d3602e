// A chain replica (docs/apps.md, "Chain replication"): two threads on one
// worker core, sharing its store and configuration — they take turns only
// at Thread calls, and neither calls one while it changes them, so no lock.
//
// - The data thread, on the replica's context: a client's WRITE as the
//   head (its version given here), a write forwarded by its predecessor,
//   stored and passed on, acknowledged as the tail, a READ answered as the
//   tail; anything else refused with the configuration (chain_protocol.h).
// - The control thread, on context + 1, when a master runs the chain
//   (chain_master.h): the master's CONFIG and PING calls; as the
//   predecessor of a joining (pending) tail, everything it holds sent to
//   it (SYNC), then a last SYNC; as the joiner, the snapshot taken — it
//   answers READs from then on.
//
// Why the joiner is the tail at once, and READs wait: the paper's join
// (OSDI'04 §3, "Extending a chain") hands the tail's role over on FIFO
// links; nanopu's messages are not ordered between two hosts (a lost
// packet is sent again after later messages), so the old tail stops
// answering READs before the joiner's snapshot is taken, and nothing it
// answered or acknowledged can be missing from it. READs are refused for
// the snapshot's transfer.
#pragma once

#include <cstdint>

#include "apps/chain/chain_config.h"
#include "apps/chain/chain_store.h"
#include "nanopu/thread.h"

namespace nanopu::apps {

struct ChainReplicaStats {
  uint64_t writes = 0;         // writes received (a client's as the head, forwarded ones)
  uint64_t stale_writes = 0;   // of which not applied: version not newer than the key's
  uint64_t forwarded = 0;      // writes sent on to the successor
  uint64_t acks = 0;           // writes acknowledged to the client (as the tail)
  uint64_t reads = 0;
  uint64_t read_misses = 0;
  uint64_t refused = 0;        // a client's request to the wrong end (answered with the config)
  uint64_t not_predecessor = 0;  // a forwarded write from another than the predecessor: dropped
  uint64_t bad = 0;            // malformed, answered kChainBad
  uint64_t dropped = 0;        // too short to answer
  uint64_t configs = 0;        // configurations taken
  uint64_t synced_out = 0, synced_in = 0;  // snapshot entries sent (to a joiner) and taken (joining)
};

// What a replica's two threads share.
struct ChainReplicaState {
  uint64_t self = 0;           // chain_node(ip, data context)
  uint64_t master = 0;         // chain_node(ip, ctx) of the master (0: a static chain)
  ChainConfig config;
  ChainStore store;
  ChainReplicaStats stats;
  uint64_t ready_epoch = 0;    // as a pending tail: the epoch whose snapshot it holds
  // Drawn when the control thread starts: a restarted replica (its store
  // empty) answers the master's PING with a new one, and takes no CONFIG
  // meant for its earlier self.
  uint64_t nonce = 0;
  // With a master: the tail answers READs only until its lease runs out
  // (each of the master's PINGs renews it), so a tail the master has
  // replaced — cut off from it, not from its clients — never answers one
  // (chain_master.h waits the lease out before it replaces a replica).
  uint64_t lease_ns = 0;       // 0: a static chain, no lease
  uint64_t lease_until_ns = 0;
};

// Whether it answers a READ: as the tail, once it holds its predecessor's
// snapshot if it joined, and, with a master, while its lease lasts.
[[nodiscard]] bool chain_answers_reads(const ChainReplicaState& s, uint64_t now_ns);

// The context a replica's control thread binds: its data context + 1.
[[nodiscard]] constexpr uint16_t chain_control_context(uint16_t data_context) {
  return static_cast<uint16_t>(data_context + 1);
}

// Binds `context` and serves the data path until the runtime stops; false
// if the bind fails.
bool serve_chain(Thread& t, uint16_t context, uint8_t priority, ChainReplicaState* s);

// Binds chain_control_context(data context) and serves the master's and
// the tail's calls until the runtime stops; false if the bind fails.
bool serve_chain_control(Thread& t, uint16_t data_context, ChainReplicaState* s);

}  // namespace nanopu::apps
