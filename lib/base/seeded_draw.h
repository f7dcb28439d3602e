// Draws from a seed for fault schedules (nanopu-dst, a fault campaign):
// splitmix64 (mix64.h), so that a seed means the same schedule with any
// standard library.
#pragma once

#include <cstdint>

#include "lib/base/mix64.h"

namespace nanopu {

class SeededDraw {
 public:
  explicit SeededDraw(uint64_t seed) : s_(seed * kGoldenGamma + 0x632be59bd9b4e019ull) {}
  uint64_t next() { return mix64(s_ += kGoldenGamma); }
  uint64_t below(uint64_t n) { return next() % n; }
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  double between(double lo, double hi) { return lo + (hi - lo) * unit(); }

 private:
  uint64_t s_;
};

}  // namespace nanopu
