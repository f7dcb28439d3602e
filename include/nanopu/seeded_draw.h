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

// The seed of one of a run's random streams (a host's wire, its boot, the
// fault schedule, a client), from the run's seed and the stream's number:
// mixed, so that no two (seed, stream) pairs a campaign uses are related
// (seed * 31 + host, the old way, made seed 1's host 31 seed 2's host 0).
[[nodiscard]] constexpr uint64_t stream_seed(uint64_t seed, uint64_t stream) {
  return mix64(seed ^ mix64(stream * kGoldenGamma + 0x2545f4914f6cdd1dull));
}

class SeededDraw {
 public:
  // The state is the seed mixed, not the seed scaled: splitmix64's state
  // steps by kGoldenGamma, so seeds whose states differ by k gammas draw
  // one stream k draws apart — with a state of seed * kGoldenGamma, seed 8's
  // draws were seed 7's shifted by one, and a fault campaign's neighbouring
  // seeds drew identical cuts and crashes (issue 71). Mixed, two seeds'
  // streams start at unrelated points of the 2^64 cycle.
  explicit SeededDraw(uint64_t seed = 1) : s_(mix64(seed + 0x632be59bd9b4e019ull)) {}

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
