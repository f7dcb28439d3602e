// Unaligned big-endian loads and stores for the header codecs (frame.cc,
// homa_header.cc): one memcpy and one byte swap each, never byte by byte.
#pragma once

#include <rte_byteorder.h>

#include <cstdint>
#include <cstring>

namespace nanopu::wire::be {

inline void put16(uint8_t* p, uint16_t v) {
  const uint16_t b = rte_cpu_to_be_16(v);
  std::memcpy(p, &b, 2);
}
inline void put32(uint8_t* p, uint32_t v) {
  const uint32_t b = rte_cpu_to_be_32(v);
  std::memcpy(p, &b, 4);
}
[[nodiscard]] inline uint16_t get16(const uint8_t* p) {
  uint16_t b;
  std::memcpy(&b, p, 2);
  return rte_be_to_cpu_16(b);
}
[[nodiscard]] inline uint32_t get32(const uint8_t* p) {
  uint32_t b;
  std::memcpy(&b, p, 4);
  return rte_be_to_cpu_32(b);
}

}  // namespace nanopu::wire::be
