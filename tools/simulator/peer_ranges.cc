#include "tools/simulator/peer_ranges.h"

#include <optional>
#include <string_view>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "nanopu/address.h"

namespace nanopu::sim {

std::string parse_peer_ranges(const std::string& text, uint32_t self, std::vector<uint32_t>* out) {
  std::vector<uint32_t> peers;  // *out only once all is read
  for (absl::string_view item : absl::StrSplit(text, ',', absl::SkipWhitespace())) {
    absl::string_view first = item, last_octet;
    if (const size_t dash = item.find('-'); dash != std::string_view::npos) {
      first = item.substr(0, dash);
      last_octet = item.substr(dash + 1);
    }
    const std::optional<uint32_t> a = parse_ipv4(std::string_view(first.data(), first.size()));
    uint32_t end = 0;
    if (!a || (!last_octet.empty() && (!absl::SimpleAtoi(last_octet, &end) || end > 255 || end < (*a & 0xff))))
      return "--peers: '" + std::string(item.data(), item.size()) +
             "' is not an IPv4 address or a.b.c.d-N with N >= d, <= 255";
    if (last_octet.empty()) end = *a & 0xff;
    // By the last octet: a range ending at .255 of 255.255.255.0/24 must not wrap.
    for (uint32_t octet = *a & 0xff; octet <= end; ++octet)
      if (const uint32_t ip = (*a & ~0xffu) | octet; ip != self) peers.push_back(ip);
  }
  if (peers.empty()) return "--peers names no host but this one: say where the messages go";
  out->insert(out->end(), peers.begin(), peers.end());
  return "";
}

}  // namespace nanopu::sim
