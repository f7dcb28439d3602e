#include "apps/peers/peer_list.h"

#include <optional>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "nanopu/address.h"

namespace nanopu::apps {

absl::StatusOr<std::vector<Peer>> parse_peer_list(const std::string& text) {
  std::vector<Peer> out;
  for (const std::string& item : std::vector<std::string>(absl::StrSplit(text, ',', absl::SkipEmpty()))) {
    const size_t colon = item.rfind(':');
    const std::optional<uint32_t> ip =
        colon == std::string::npos ? std::nullopt : parse_ipv4(item.substr(0, colon));
    uint32_t ctx = 0;
    if (!ip || !absl::SimpleAtoi(item.substr(colon + 1), &ctx) || ctx > 0xffff)
      return absl::InvalidArgumentError(absl::StrCat("'", item, "' is not IP:CONTEXT (e.g. 10.0.0.1:5)"));
    for (const Peer& p : out)
      if (p.ip == *ip && p.context == ctx)
        return absl::InvalidArgumentError(absl::StrCat("'", item, "' is listed twice"));
    out.push_back({*ip, static_cast<uint16_t>(ctx)});
  }
  if (out.empty()) return absl::InvalidArgumentError("give them as IP:CONTEXT,...");
  return out;
}

}  // namespace nanopu::apps
