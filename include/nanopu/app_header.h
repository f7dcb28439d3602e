// The 8-byte application header: the first word of every message a thread
// reads (RX) or writes (TX). Never on the wire (docs/wire.md; nanoPU (OSDI'21) §2.1).
//
//   bits 63..32  peer IPv4 (host-order integer, 10.0.0.2 == 0x0a000002)
//   bits 31..16  peer context (L4 port)
//   bits 15..0   message length in bytes, payload only (> 0)
#pragma once

#include <cstdint>

namespace nanopu {

inline constexpr uint64_t kIpMask = 0xffffffff00000000ull;
inline constexpr uint64_t kContextMask = 0x00000000ffff0000ull;
inline constexpr uint64_t kLenMask = 0x000000000000ffffull;
inline constexpr uint64_t kWordBytes = 8;

struct AppHeader {
  uint32_t ip = 0;
  uint16_t context = 0;
  uint16_t len = 0;

  [[nodiscard]] constexpr uint64_t word() const {
    return (uint64_t{ip} << 32) | (uint64_t{context} << 16) | len;
  }
  [[nodiscard]] static constexpr AppHeader from_word(uint64_t w) {
    return AppHeader{static_cast<uint32_t>(w >> 32), static_cast<uint16_t>(w >> 16),
                     static_cast<uint16_t>(w)};
  }
  // Payload words that follow the header: ceil(len / 8).
  [[nodiscard]] constexpr uint32_t payload_words() const {
    return (uint32_t{len} + kWordBytes - 1) / kWordBytes;
  }
  friend constexpr bool operator==(const AppHeader&, const AppHeader&) = default;
};

}  // namespace nanopu
