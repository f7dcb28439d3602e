// Othello positions as two bitboards (bit 8·row + col; the player to move's
// discs and the opponent's), move generation by shifting the mover's discs
// along each of the eight directions through runs of opponent discs (the
// usual bitboard method), and a plain negamax search. The Othello service
// (othello_service.h) distributes the top of this search over hosts.
#pragma once

#include <cstdint>

namespace nanopu::apps {

struct Board {
  uint64_t own = 0;  // the player to move
  uint64_t opp = 0;
  bool operator==(const Board&) const = default;
};

// The opening position, black to move.
[[nodiscard]] constexpr Board othello_start() {
  return {(uint64_t{1} << 28) | (uint64_t{1} << 35), (uint64_t{1} << 27) | (uint64_t{1} << 36)};
}

// Squares where the player to move may play (each flips at least one disc).
[[nodiscard]] uint64_t legal_moves(const Board& b);
// The position after the player to move plays `square` (a legal move), with
// the sides swapped (the opponent is now to move).
[[nodiscard]] Board play(const Board& b, int square);
// The position after a pass: the sides swapped.
[[nodiscard]] constexpr Board pass(const Board& b) { return {b.opp, b.own}; }

// The static value for the player to move: disc difference; at the end of
// the game (neither side can move) it is scaled by kOthelloWin so that a
// won game beats any unfinished one.
inline constexpr int64_t kOthelloWin = 1000;
[[nodiscard]] int64_t evaluate(const Board& b, bool game_over);

// Negamax to `depth` plies (a pass is a ply; the game's end stops early).
// *nodes counts the positions visited (the declared work).
[[nodiscard]] int64_t negamax(const Board& b, int depth, uint64_t* nodes = nullptr);

// The children of b in move order (ascending square), or its pass: what a
// MAP fans out. Returns how many (0: the game is over).
int children(const Board& b, Board out[64]);

}  // namespace nanopu::apps
