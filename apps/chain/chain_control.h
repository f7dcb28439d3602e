// The calls (nanopu/rpc.h) between a chain's master and its replicas'
// control threads, and from a joining tail's predecessor to it: payload
// words after the call word.
//
//   CONFIG {kCtlConfig, nonce, config words (chain_config.h)} -> {the replica's epoch}
//   PING   {kCtlPing, sent_at (the master's clock, ns), epoch} -> {epoch, ready_epoch, keys, nonce}
//   SYNC   {kCtlSync, epoch, n, last, entry[n]}               -> {n taken}
//          entry = {key[0], key[1], version, value[8]}
//
// A replica answers PING with its configuration's epoch (0: none yet),
// the epoch whose snapshot it holds as a joining tail (ready_epoch: the
// master then ends the join) and the nonce it drew at start; it takes a
// CONFIG only if the nonce is its own (one meant for its earlier self —
// before a restart emptied its store — would make it a member holding
// nothing). A PING renews a replica's read lease only if it names the
// replica's own epoch: a tail the master has replaced, that missed the
// CONFIG saying so, must not be kept answering by the pings that follow it.
// The predecessor's last SYNC (last = 1, n = 0) follows every
// other's completion: the joiner then holds the snapshot.
#pragma once

#include <cstdint>

#include "apps/chain/chain_protocol.h"

namespace nanopu::apps {

enum ChainCtl : uint64_t { kCtlConfig = 1, kCtlPing = 2, kCtlSync = 3 };

inline constexpr uint32_t kSyncEntryWords = 3 + kChainValueWords;
inline constexpr uint32_t kSyncHeadWords = 3;  // epoch, n, last
inline constexpr uint32_t kSyncBatch = 256;  // entries per SYNC call (22.5 KB)

}  // namespace nanopu::apps
