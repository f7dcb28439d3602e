// "HOST@FROM_MS+FOR_MS" — a host and a span of modelled time, as a --cut
// or --crash flag names one and a printed fault schedule does
// (nanopu/sim.h, parse_schedule): one parser for both, and a crash's.
#pragma once

#include <string>

#include "absl/strings/string_view.h"
#include "nanopu/sim.h"

namespace nanopu::sim {

struct HostWindow {
  std::string host;
  double from_ms = 0, for_ms = 0;  // for_ms 0: open-ended ("for good")
};

// False unless `item` is HOST@FROM_MS+FOR_MS with 0 <= FROM_MS and
// 0 < FOR_MS, each a plain decimal of at most 1e9 ms (11 days: longer is a
// typo) — or, when `open_ended`, HOST@FROM_MS too.
[[nodiscard]] bool parse_host_window(absl::string_view item, bool open_ended, HostWindow* w);

// A crash as --crash and a schedule name one:
// "HOST@AT_MS[+DOWN_MS][/after-send][/power-loss]" (Crash::after_send,
// Crash::power_loss); the times exact (17 significant digits) when printed.
inline constexpr char kCrashSyntax[] = "HOST@AT_MS[+DOWN_MS][/after-send][/power-loss]";
[[nodiscard]] bool parse_crash(absl::string_view item, Crash* c);
[[nodiscard]] std::string format_crash(const Crash& c);

}  // namespace nanopu::sim
