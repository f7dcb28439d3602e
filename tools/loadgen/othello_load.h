// nanopu-loadgen's Othello client (--service=othello; apps/othello): MAPs
// of positions a random 4..24 plies from the opening, searched --othello_depth
// plies, sent to the root; each REDUCE's minimax checked against a plain
// recursive search computed here (othello_reference.h) after the measured
// run, so that the reference's cost stays out of the round trips.
#pragma once

#include <cstdint>

#include "tools/loadgen/loadgen.h"

namespace nanopu::apps {

struct OthelloLoadOptions {
  uint32_t client_ip = 0;  // this host, named in the MAP as its source
  uint32_t depth = 3;      // max_depth
};

struct OthelloLoadResult {
  uint64_t checked = 0;  // REDUCEs equal to the reference search
};

void run_othello_client(Thread& t, const LoadGenOptions& o, const OthelloLoadOptions& ol, LoadGenResult* r,
                        OthelloLoadResult* orr);

}  // namespace nanopu::apps
