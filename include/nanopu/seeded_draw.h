// Every seeded choice nanopu makes — a fault on the wire, a request's key or
// arrival, a workload's message size, a Raft election timeout, a fault
// campaign's schedule — and any an author's client makes, drawn here:
// splitmix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number
// generators", OOPSLA 2014), written out rather than taken from <random>,
// whose distributions the C++ standard leaves to each library: a seed must
// mean one run with any standard library (FoundationDB draws every choice
// from its one deterministicRandom() for the same reason).
// tests/lib/base/seeded_draw_test.cc pins a seed's first draws.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

namespace nanopu {

// splitmix64's finalizer: a 64-bit value mixed so that every input bit
// moves every output bit (also nanopu's hash of a key or a flow).
[[nodiscard]] constexpr uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// splitmix64's golden-ratio increment (its state steps by this).
inline constexpr uint64_t kGoldenGamma = 0x9e3779b97f4a7c15ull;

class SeededDraw {
 public:
  explicit SeededDraw(uint64_t seed = 1) : s_(seed * kGoldenGamma + 0x632be59bd9b4e019ull) {}

  // 64 uniform bits.
  uint64_t next() { return mix64(s_ += kGoldenGamma); }
  // 0 .. n-1 (n > 0; the modulo's bias is below 2^-40 for n < 2^24).
  uint64_t below(uint64_t n) { return next() % n; }
  // lo .. hi, both included (lo <= hi).
  uint64_t int_between(uint64_t lo, uint64_t hi) {
    return hi - lo == std::numeric_limits<uint64_t>::max() ? next() : lo + below(hi - lo + 1);
  }
  // [0, 1), 53 bits.
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  // [lo, hi).
  double between(double lo, double hi) { return lo + (hi - lo) * unit(); }
  // True with probability p (p <= 0: never; p >= 1: always).
  bool chance(double p) { return unit() < p; }
  // An exponential variate of mean 1 / rate (rate > 0): Poisson arrivals.
  double exponential(double rate) { return -std::log1p(-unit()) / rate; }

  // A uniform random bit generator, for code that needs one (its own
  // distributions then are the library's again: draw with the calls above).
  using result_type = uint64_t;
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return std::numeric_limits<uint64_t>::max(); }
  result_type operator()() { return next(); }

 private:
  uint64_t s_;
};

}  // namespace nanopu
