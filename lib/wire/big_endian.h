// Unaligned big-endian loads and stores for the header codecs (frame.cc,
// homa_header.cc): one memcpy and one byte swap each, never byte by byte.
// The compiler's byte swaps, not DPDK's rte_bswap16, whose inline assembly
// (xchgb) the compiler can neither fold nor schedule around: 110 of a whole
// RPC's instructions were its swaps (nanopu-bench-rpc under callgrind).
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>

namespace nanopu::wire::be {

template <typename T>
[[nodiscard]] constexpr T to_from_be(T v) {
  if constexpr (std::endian::native == std::endian::big) return v;
  if constexpr (sizeof(T) == 2) return static_cast<T>(__builtin_bswap16(v));
  if constexpr (sizeof(T) == 4) return static_cast<T>(__builtin_bswap32(v));
  return static_cast<T>(__builtin_bswap64(v));
}

inline void put16(uint8_t* p, uint16_t v) {
  const uint16_t b = to_from_be(v);
  std::memcpy(p, &b, 2);
}
inline void put32(uint8_t* p, uint32_t v) {
  const uint32_t b = to_from_be(v);
  std::memcpy(p, &b, 4);
}
[[nodiscard]] inline uint16_t get16(const uint8_t* p) {
  uint16_t b;
  std::memcpy(&b, p, 2);
  return to_from_be(b);
}
[[nodiscard]] inline uint32_t get32(const uint8_t* p) {
  uint32_t b;
  std::memcpy(&b, p, 4);
  return to_from_be(b);
}

}  // namespace nanopu::wire::be
