// Othello's messages (docs/apps.md; the prototype's layouts of nanoPU
// OSDI'21 Table 1, extended by one word):
//
//   MAP     {0, own, max_depth, cur_depth, src_host, src_msg_ptr, timestamp, opp}   len 64
//   REDUCE  {1, target_host, target_ptr, minimax, timestamp}                        len 40
//   error   {4, code, src_msg_ptr, 0, timestamp}                                     len 40 (nanopu's)
//
// The prototype's MAP is 56 bytes with one `board` word, which cannot hold
// an Othello position (two bitboards); nanopu reads that word as the
// bitboard of the player to move and appends the opponent's as an eighth
// word. A 56-byte MAP is a position with no opponent disc (a finished game).
// Hosts are named `context << 32 | ip` (as the chain's nodes). minimax is a
// two's-complement int64 for the player to move in the MAP's position;
// timestamp (timestamp32 << 32 | latency32 in the prototype) is carried
// through unchanged. Error codes (status_words.h): kErrBadLength,
// kErrUnknownType, kErrBadValue (depths out of range, overlapping
// bitboards), kErrBadCount (too many searches pending).
#pragma once

#include <cstdint>

#include "apps/compute/status_words.h"

namespace nanopu::apps {

inline constexpr uint64_t kOthelloMap = 0;
inline constexpr uint64_t kOthelloReduce = 1;
inline constexpr uint64_t kOthelloError = 4;
inline constexpr uint16_t kOthelloMapBytes = 64;
inline constexpr uint16_t kOthelloPrototypeMapBytes = 56;
inline constexpr uint16_t kOthelloReduceBytes = 40;
inline constexpr uint64_t kOthelloMaxDepth = 8;

[[nodiscard]] constexpr uint64_t othello_host(uint32_t ip, uint16_t context) {
  return uint64_t{context} << 32 | ip;
}

// One message's payload words, checked: what the service does with it.
struct OthelloMessage {
  enum class Kind : uint8_t { kMap, kReduce, kError, kDrop } kind = Kind::kDrop;
  uint64_t own = 0, opp = 0, max_depth = 0, cur_depth = 0;  // kMap
  uint64_t host = 0;     // kMap: src_host; kReduce: target_host
  uint64_t ptr = 0;      // kMap: src_msg_ptr; kReduce: target_ptr; kError: the MAP's
  uint64_t minimax = 0;  // kReduce
  uint64_t timestamp = 0;
  uint64_t code = 0;     // kError (status_words.h)
};
[[nodiscard]] OthelloMessage parse_othello(const uint64_t* words, uint32_t n);

}  // namespace nanopu::apps
