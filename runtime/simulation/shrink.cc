#include "runtime/simulation/shrink.h"

#include <algorithm>

namespace nanopu::sim {

Shrunk ddmin(size_t n, const std::function<bool(const std::vector<size_t>& kept)>& fails, int max_tests) {
  Shrunk s;
  for (size_t i = 0; i < n; ++i) s.kept.push_back(i);
  auto test = [&](const std::vector<size_t>& kept) {
    ++s.tests;
    return fails(kept);
  };
  // Nothing at all first: a failure no fault causes shrinks in one run.
  if (n == 0) return s;
  if (test({})) {
    s.kept.clear();
    return s;
  }
  size_t chunks = 2;
  while (s.kept.size() >= 2) {
    const size_t size = s.kept.size();
    chunks = std::min(chunks, size);
    bool reduced = false;
    // Each chunk alone, then each complement (ddmin's two reductions).
    // (Of two chunks, each one's complement is the other: tried already.)
    for (int pass = 0; pass < (chunks == 2 ? 1 : 2) && !reduced; ++pass) {
      for (size_t c = 0; c < chunks && !reduced; ++c) {
        const size_t from = c * size / chunks, to = (c + 1) * size / chunks;
        std::vector<size_t> candidate;
        for (size_t i = 0; i < size; ++i)
          if ((i >= from && i < to) == (pass == 0)) candidate.push_back(s.kept[i]);
        if (candidate.empty() || candidate.size() == size) continue;
        if (s.tests >= max_tests) {
          s.exhausted = true;
          return s;
        }
        if (test(candidate)) {
          s.kept = std::move(candidate);
          chunks = pass == 0 ? 2 : std::max<size_t>(chunks - 1, 2);
          reduced = true;
        }
      }
    }
    if (reduced) continue;
    if (chunks >= size) break;  // every single item is needed: 1-minimal
    chunks = std::min(chunks * 2, size);
  }
  // One item left: it is needed (the empty set passed).
  return s;
}

}  // namespace nanopu::sim
