// The Othello game-tree search as map/reduce over hosts (nanoPU OSDI'21
// Table 1; messages in othello_protocol.h). A MAP asks for the minimax
// value of a position searched max_depth - cur_depth plies deeper. A host
// with workers, given a MAP with cur_depth < fanout_depth, fans the
// position's children out as MAPs one ply deeper (round-robin over its
// workers, itself named as their source) and keeps the search pending;
// each REDUCE that comes back is negated into the best value so far, and
// when the last child has reduced it sends its own REDUCE to the MAP's
// source. Any other MAP is searched here (othello_board.h's negamax) and
// reduced at once. Every host runs the same service; only the root needs
// --othello_workers.
#pragma once

#include <cstdint>
#include <vector>

#include "apps/peers/peer_list.h"
#include "nanopu/thread.h"

namespace nanopu::apps {

struct OthelloOptions {
  std::vector<Peer> workers;  // empty: search every MAP here
  uint64_t fanout_depth = 1;         // fan out MAPs with cur_depth below this
  uint32_t max_pending = 4096;       // searches waiting for REDUCEs
};

struct OthelloStats {
  uint64_t maps = 0;         // MAPs taken
  uint64_t searched = 0;     // answered from a local search
  uint64_t fanned_out = 0;   // MAPs sent to workers
  uint64_t reduces = 0;      // REDUCEs taken from workers
  uint64_t errors = 0;       // answered with an error
  uint64_t stray = 0;        // REDUCEs naming no pending search, dropped
  uint64_t dropped = 0;      // too short to hold a type, dropped
  uint64_t nodes = 0;        // positions searched here
  uint64_t send_failures = 0;  // a MAP or REDUCE the TX side refused (no buffers)
};

// Declared work for the modelled column (nanopu's estimate at 3.2 GHz): a
// position's move generation and evaluation on the in-order core, eight
// directions of shifts and masks, 150 cycles.
inline constexpr double kOthelloCyclesPerNode = 150;

// Binds `context` at `priority` (this host is `self_ip`) and serves until
// the runtime stops; false if the bind failed.
bool serve_othello(Thread& t, uint32_t self_ip, uint16_t context, uint8_t priority, const OthelloOptions& o,
                   OthelloStats* stats);

}  // namespace nanopu::apps
