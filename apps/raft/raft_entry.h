// One entry of a Raft log: the term it was created in and a client's
// operation on the key-value state machine (apps/raft/raft_protocol.h has
// its wire form).
#pragma once

#include <algorithm>
#include <cstdint>

#include "apps/raft/raft_protocol.h"

namespace nanopu::apps {

struct RaftEntry {
  uint64_t term = 0;
  uint64_t client = 0;      // slot << 48 | ctx << 32 | ip: where the reply goes
  uint64_t session = 0;     // the client's incarnation (its boot nonce)
  uint64_t client_seq = 0;
  RaftOp op = RaftOp::kNoop;
  RaftKey key{};
  RaftValue value{};
};

// Its kRaftEntryWords words {term, client, session, client_seq, op, key[2], value[8]}:
// an AppendEntries entry on the wire, and a record's body on disk
// (apps/raft/raft_storage.h).
inline RaftEntry raft_entry_from_words(const uint64_t* w) {
  RaftEntry e;
  e.term = w[0];
  e.client = w[1];
  e.session = w[2];
  e.client_seq = w[3];
  e.op = static_cast<RaftOp>(w[4]);
  e.key = {w[5], w[6]};
  std::copy(w + 7, w + 7 + kRaftValueWords, e.value.begin());
  return e;
}
inline void raft_entry_to_words(const RaftEntry& e, uint64_t* w) {
  w[0] = e.term;
  w[1] = e.client;
  w[2] = e.session;
  w[3] = e.client_seq;
  w[4] = static_cast<uint64_t>(e.op);
  w[5] = e.key[0];
  w[6] = e.key[1];
  std::copy(e.value.begin(), e.value.end(), w + 7);
}

}  // namespace nanopu::apps
