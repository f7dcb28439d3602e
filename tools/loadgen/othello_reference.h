// A plain Othello search for nanopu-loadgen and the tests to check the
// service's answers against: an 8x8 array of squares, moves found by
// walking each of the eight rays square by square (no bitboards), and a
// recursive negamax with the service's rules (othello_board.h: a pass is a
// ply, disc difference, a finished game scaled by 1000).
#pragma once

#include <cstdint>

#include "nanopu/seeded_draw.h"

namespace nanopu::apps {

struct RefPosition {
  int8_t sq[64] = {};  // +1 the player to move, -1 the opponent, 0 empty
};

[[nodiscard]] RefPosition ref_from_bitboards(uint64_t own, uint64_t opp);
[[nodiscard]] uint64_t ref_own(const RefPosition& p);
[[nodiscard]] uint64_t ref_opp(const RefPosition& p);
[[nodiscard]] int64_t ref_negamax(const RefPosition& p, int depth);
// A position `plies` random legal moves (or passes) from the opening.
[[nodiscard]] RefPosition ref_random_position(SeededDraw& rng, int plies);

}  // namespace nanopu::apps
