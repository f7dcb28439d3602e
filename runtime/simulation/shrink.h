// Delta debugging (Zeller and Hildebrandt, "Simplifying and Isolating
// Failure-Inducing Input", TSE 2002, the ddmin algorithm): the fewest of n
// items that still make a test fail. A failing seed's fault schedule is
// shrunk with it (nanopu/sim.h, Campaign::shrink), each test a run of the
// seed with some of its faults taken out: the seeds' other streams are the
// seed's alone (runtime/simulation/streams.h), so taking a fault out
// changes nothing else that was drawn.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

namespace nanopu::sim {

struct Shrunk {
  std::vector<size_t> kept;  // indices into the n items, ascending
  int tests = 0;             // runs of `fails`
  bool exhausted = false;    // stopped at max_tests: `kept` still fails, but may not be minimal
};

// `fails(kept)`: whether the test still fails with only those items. The
// full set is assumed to fail. 1-minimal when not exhausted: taking out any
// one of `kept` makes the test pass.
[[nodiscard]] Shrunk ddmin(size_t n, const std::function<bool(const std::vector<size_t>& kept)>& fails,
                           int max_tests);

}  // namespace nanopu::sim
