// "HOST@FROM_MS+FOR_MS" — a host and a span of modelled time, as a --cut
// or --crash flag names one and a printed fault schedule does
// (nanopu/sim.h, parse_schedule): one parser for both.
#pragma once

#include <string>

#include "absl/strings/string_view.h"

namespace nanopu::sim {

struct HostWindow {
  std::string host;
  double from_ms = 0, for_ms = 0;  // for_ms 0: open-ended ("for good")
};

// False unless `item` is HOST@FROM_MS+FOR_MS with 0 <= FROM_MS and
// 0 < FOR_MS, each a plain decimal of at most 1e9 ms (11 days: longer is a
// typo) — or, when `open_ended`, HOST@FROM_MS too.
[[nodiscard]] bool parse_host_window(absl::string_view item, bool open_ended, HostWindow* w);

}  // namespace nanopu::sim
