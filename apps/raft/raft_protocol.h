// Raft's messages (docs/apps.md; nanoPU OSDI'21 §5.3, whose prototype ran
// willemt/raft with a 16-byte-key, 64-byte-value state machine). The
// message type is the low 16 bits of the first word, as the prototype's;
// the rest of the layout is nanopu's:
//
//   word 0 = term << 16 | type
//   RequestVote            {w0, candidate, last_log_index, last_log_term}
//   RequestVoteResponse    {w0, voter, granted}
//   AppendEntries          {w0, leader, prev_log_index, prev_log_term, leader_commit, n,
//                           entry[n]}       entry = {term, client, session, client_seq, op, key[2], value[8]}
//   AppendEntriesResponse  {w0, follower, success, match_index}
//   ClientRequest          {w0, sent_time, client, session, client_seq, op, key[2], value[8] (PUT)}
//   ClientRequestResponse  {w0, sent_time, client_seq, status, leader, value[8] (GET hit)}
//
// Servers are named by index in the cluster list; client = slot << 48 |
// ctx << 32 | ip (the reply goes to ctx and ip); session: the client
// process's incarnation, a nonce it draws when it starts (issue 54: a
// restarted or second client at one address must never be answered what
// was meant for another). A server keeps, per (client, session), the newest
// request it applied and its answer. A reply's leader word names the leader
// as index + 1 (0: unknown). Status: 0 success, 1 redirect (to `leader`),
// 2 retry (no leader yet), 3 not found (GET of an absent key; nanopu),
// 4 bad request (nanopu), 5 superseded (a request older than the newest its
// session had applied: its own answer is gone; nanopu).
#pragma once

#include <array>
#include <cstdint>

namespace nanopu::apps {

enum class RaftType : uint16_t {
  kRequestVote = 0,
  kAppendEntries = 1,
  kClientRequest = 2,
  kRequestVoteResponse = 3,
  kAppendEntriesResponse = 4,
  kClientRequestResponse = 5,
};

enum class RaftOp : uint64_t { kNoop = 0, kGet = 1, kPut = 2 };

enum class RaftStatus : uint64_t { kOk = 0, kRedirect = 1, kRetry = 2, kNotFound = 3, kBad = 4, kSuperseded = 5 };

inline constexpr uint32_t kRaftValueWords = 8;   // 64-byte values
inline constexpr uint32_t kRaftEntryWords = 7 + kRaftValueWords;
inline constexpr uint32_t kRaftMaxBatch = 8;     // entries per AppendEntries
inline constexpr uint32_t kRaftAppendHeadWords = 6;
inline constexpr uint32_t kRaftMaxWords = kRaftAppendHeadWords + kRaftMaxBatch * kRaftEntryWords;
inline constexpr uint32_t kRaftClientRequestWords = 8;  // without the value
inline constexpr uint32_t kRaftClientReplyWords = 5;    // without the value

// A server's declared work per relay of a request (append to the log or
// take an append, apply to the store), for the timing model's modelled
// column: 100 cycles, nanopu's estimate (not measured on nanoPU hardware).
inline constexpr double kRaftOpCycles = 100;

using RaftKey = std::array<uint64_t, 2>;
using RaftValue = std::array<uint64_t, kRaftValueWords>;

[[nodiscard]] constexpr uint64_t raft_w0(uint64_t term, RaftType type) {
  return term << 16 | static_cast<uint16_t>(type);
}
[[nodiscard]] constexpr RaftType raft_type(uint64_t w0) { return static_cast<RaftType>(w0 & 0xffff); }
[[nodiscard]] constexpr uint64_t raft_term(uint64_t w0) { return w0 >> 16; }

// Payload lengths in bytes.
[[nodiscard]] constexpr uint16_t raft_client_request_len(RaftOp op) {
  return static_cast<uint16_t>(8 * (kRaftClientRequestWords + (op == RaftOp::kPut ? kRaftValueWords : 0)));
}
[[nodiscard]] constexpr uint16_t raft_client_reply_len(bool value) {
  return static_cast<uint16_t>(8 * (kRaftClientReplyWords + (value ? kRaftValueWords : 0)));
}

}  // namespace nanopu::apps
