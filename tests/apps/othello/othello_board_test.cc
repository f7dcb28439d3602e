// The bitboard move generator and search against the square-by-square
// reference nanopu-loadgen checks the service with: the same successors and
// the same negamax value on positions from across a game.
#include <gtest/gtest.h>

#include <bit>
#include <random>

#include "tools/loadgen/othello_reference.h"
#include "apps/othello/othello_board.h"

namespace nanopu::apps {
namespace {

TEST(OthelloBoardTest, TheOpeningHasFourMoves) {
  const Board b = othello_start();
  EXPECT_EQ(legal_moves(b), (uint64_t{1} << 19) | (uint64_t{1} << 26) | (uint64_t{1} << 37) | (uint64_t{1} << 44));
  const Board after = play(b, 19);  // d3 flips d4
  EXPECT_EQ(std::popcount(after.opp), 4);
  EXPECT_EQ(std::popcount(after.own), 1);
}

TEST(OthelloBoardTest, NegamaxEqualsThePlainSearchAcrossGames) {
  SeededDraw rng(9);
  for (int i = 0; i < 300; ++i) {
    const RefPosition p = ref_random_position(rng, static_cast<int>(rng() % 61));
    const Board b{ref_own(p), ref_opp(p)};
    ASSERT_EQ(b.own & b.opp, 0u);
    const int depth = static_cast<int>(rng() % 4);
    ASSERT_EQ(negamax(b, depth), ref_negamax(p, depth)) << "position " << i << " depth " << depth;
  }
}

TEST(OthelloBoardTest, AFinishedGameIsScored) {
  const Board full{~uint64_t{0} >> 20, ~(~uint64_t{0} >> 20)};  // 44 own, 20 opp, no empty square
  Board next[64];
  EXPECT_EQ(children(full, next), 0);
  EXPECT_EQ(negamax(full, 3), 24 * kOthelloWin);
}

}  // namespace
}  // namespace nanopu::apps
