// nanopu-loadgen's dot-product client (--service=dot; apps/dot): requests of
// --dot_words random indices below 2000 in the packet tester's layout
// ({1, n, idx[n], timestamp}: the timestamp is the send time, and the reply
// carries it back) or Listing 2's ({3, n, (idx, value) x n}), each reply's
// result checked against the same sum computed here. Listing 2's reply
// carries no timestamp: it is matched to the oldest request in flight
// whose result it is.
#pragma once

#include <cstdint>

#include "tools/loadgen/loadgen.h"

namespace nanopu::apps {

struct DotLoadOptions {
  bool pairs = false;   // Listing 2's layout; else the tester's
  uint32_t words = 16;  // n: indices per request
};

struct DotLoadResult {
  uint64_t checked = 0;  // replies whose result matched
};

void run_dot_client(Thread& t, const LoadGenOptions& o, const DotLoadOptions& d, LoadGenResult* r,
                    DotLoadResult* dr);

// The request's length in bytes.
[[nodiscard]] constexpr uint32_t dot_request_bytes(const DotLoadOptions& d) {
  return 8 * (d.pairs ? 2 + 2 * d.words : 3 + d.words);
}

}  // namespace nanopu::apps
