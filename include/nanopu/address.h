// IPv4 and MAC addresses as nanopu's configuration and application header
// carry them: IPv4 as a host-order integer (10.0.0.2 == 0x0a000002), a MAC as
// six bytes in wire order.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace nanopu {

using MacAddress = std::array<uint8_t, 6>;
inline constexpr MacAddress kBroadcastMacAddress = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};

// "10.0.0.2" -> 0x0a000002; nullopt on anything else.
[[nodiscard]] std::optional<uint32_t> parse_ipv4(std::string_view text);
// "aa:bb:cc:dd:ee:ff" (hex, one or two digits per byte); nullopt on anything else.
[[nodiscard]] std::optional<MacAddress> parse_mac(std::string_view text);

[[nodiscard]] std::string format_ipv4(uint32_t ip);
[[nodiscard]] std::string format_mac(const MacAddress& mac);

}  // namespace nanopu
