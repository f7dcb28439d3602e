// splitmix64's finalizer (Steele, Lea and Flood, "Fast splittable
// pseudorandom number generators", OOPSLA 2014): a 64-bit value mixed so
// that every input bit moves every output bit. Written out rather than
// taken from <random>, whose engines' seeding and distributions are not
// specified bit for bit: a seed must mean the same run with any library.
#pragma once

#include <cstdint>

namespace nanopu {

[[nodiscard]] constexpr uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// splitmix64's golden-ratio increment (its state steps by this).
inline constexpr uint64_t kGoldenGamma = 0x9e3779b97f4a7c15ull;

}  // namespace nanopu
