#include "nanopu/address.h"

#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"

namespace nanopu {

std::optional<uint32_t> parse_ipv4(std::string_view text) {
  std::vector<absl::string_view> parts = absl::StrSplit(absl::string_view(text.data(), text.size()), '.');
  if (parts.size() != 4) return std::nullopt;
  uint32_t ip = 0;
  for (absl::string_view p : parts) {
    uint32_t v = 0;
    if (p.empty() || p.size() > 3 || !absl::SimpleAtoi(p, &v) || v > 255) return std::nullopt;
    ip = (ip << 8) | v;
  }
  return ip;
}

std::optional<MacAddress> parse_mac(std::string_view text) {
  std::vector<absl::string_view> parts = absl::StrSplit(absl::string_view(text.data(), text.size()), ':');
  if (parts.size() != 6) return std::nullopt;
  MacAddress mac{};
  for (size_t i = 0; i < 6; ++i) {
    uint32_t v = 0;
    if (parts[i].empty() || parts[i].size() > 2 || !absl::SimpleHexAtoi(parts[i], &v))
      return std::nullopt;
    mac[i] = static_cast<uint8_t>(v);
  }
  return mac;
}

std::string format_ipv4(uint32_t ip) {
  return absl::StrFormat("%u.%u.%u.%u", ip >> 24, (ip >> 16) & 0xff, (ip >> 8) & 0xff, ip & 0xff);
}

std::string format_mac(const MacAddress& m) {
  return absl::StrFormat("%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5]);
}

}  // namespace nanopu
