#include "apps/othello/othello_board.h"

#include <algorithm>
#include <bit>

namespace nanopu::apps {
namespace {

constexpr uint64_t kNotA = 0xfefefefefefefefeull;  // clears column 0 after a shift towards higher columns
constexpr uint64_t kNotH = 0x7f7f7f7f7f7f7f7full;  // clears column 7 after a shift towards lower columns

// One step in direction d (0..7) with the wrap-around columns masked.
constexpr uint64_t shift(uint64_t x, int d) {
  switch (d) {
    case 0: return (x << 1) & kNotA;  // east
    case 1: return (x >> 1) & kNotH;  // west
    case 2: return x << 8;            // south
    case 3: return x >> 8;            // north
    case 4: return (x << 9) & kNotA;  // south-east
    case 5: return (x << 7) & kNotH;  // south-west
    case 6: return (x >> 7) & kNotA;  // north-east
    default: return (x >> 9) & kNotH;  // north-west
  }
}

}  // namespace

uint64_t legal_moves(const Board& b) {
  const uint64_t empty = ~(b.own | b.opp);
  uint64_t moves = 0;
  for (int d = 0; d < 8; ++d) {
    uint64_t run = shift(b.own, d) & b.opp;  // opponent discs next to ours
    for (int i = 0; i < 5; ++i) run |= shift(run, d) & b.opp;
    moves |= shift(run, d) & empty;
  }
  return moves;
}

Board play(const Board& b, int square) {
  const uint64_t move = uint64_t{1} << square;
  uint64_t flips = 0;
  for (int d = 0; d < 8; ++d) {
    uint64_t run = 0, x = shift(move, d);
    while (x & b.opp) {
      run |= x;
      x = shift(x, d);
    }
    if (x & b.own) flips |= run;  // the run ends on our disc: it is captured
  }
  return {b.opp & ~flips, b.own | flips | move};
}

int64_t evaluate(const Board& b, bool game_over) {
  const int64_t diff = std::popcount(b.own) - std::popcount(b.opp);
  return game_over ? diff * kOthelloWin : diff;
}

int children(const Board& b, Board out[64]) {
  uint64_t moves = legal_moves(b);
  int n = 0;
  while (moves) {
    out[n++] = play(b, std::countr_zero(moves));
    moves &= moves - 1;
  }
  if (n == 0 && legal_moves(pass(b)) != 0) out[n++] = pass(b);
  return n;
}

int64_t negamax(const Board& b, int depth, uint64_t* nodes) {
  if (nodes) ++*nodes;
  Board next[64];
  const int n = children(b, next);
  if (n == 0) return evaluate(b, true);
  if (depth <= 0) return evaluate(b, false);
  int64_t best = INT64_MIN;
  for (int i = 0; i < n; ++i) best = std::max(best, -negamax(next[i], depth - 1, nodes));
  return best;
}

}  // namespace nanopu::apps
