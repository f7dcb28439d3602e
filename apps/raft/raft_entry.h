// One entry of a Raft log: the term it was created in and a client's
// operation on the key-value state machine (apps/raft/raft_protocol.h has
// its wire form).
#pragma once

#include <cstdint>

#include "apps/raft/raft_protocol.h"

namespace nanopu::apps {

struct RaftEntry {
  uint64_t term = 0;
  uint64_t client = 0;      // ctx << 32 | ip: where the reply goes
  uint64_t client_seq = 0;
  RaftOp op = RaftOp::kNoop;
  RaftKey key{};
  RaftValue value{};
};

}  // namespace nanopu::apps
