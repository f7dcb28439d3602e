// nanopu/sim.h: a fault schedule as one line and back — what a shrunk
// schedule's replay command carries (dst --schedule). Exact: a cut's and a
// crash's times at 17 significant digits, so the replay is the run.
#include <cmath>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "nanopu/sim.h"
#include "runtime/simulation/host_window.h"

namespace nanopu::sim {

bool parse_host_window(absl::string_view item, bool open_ended, HostWindow* w) {
  auto ms_ok = [](double v) { return std::isfinite(v) && v >= 0 && v <= 1e9; };
  const size_t at = item.find('@');
  if (at == absl::string_view::npos || at == 0) return false;
  const size_t plus = item.find('+', at);  // plain decimals: no exponents
  double from = 0, len = 0;
  if (plus == absl::string_view::npos) {
    if (!open_ended || !absl::SimpleAtod(item.substr(at + 1), &from) || !ms_ok(from)) return false;
  } else if (!absl::SimpleAtod(item.substr(at + 1, plus - at - 1), &from) ||
             !absl::SimpleAtod(item.substr(plus + 1), &len) || !ms_ok(from) || !ms_ok(len) || len == 0) {
    return false;
  }
  *w = HostWindow{std::string(item.substr(0, at)), from, len};
  return true;
}

bool parse_crash(absl::string_view item, Crash* c) {
  std::vector<absl::string_view> parts = absl::StrSplit(item, '/');
  HostWindow w;
  if (!parse_host_window(parts[0], true, &w)) return false;
  *c = Crash{w.host, w.from_ms, w.for_ms};
  for (size_t i = 1; i < parts.size(); ++i) {
    if (parts[i] == "after-send" && !c->after_send) c->after_send = true;
    else if (parts[i] == "power-loss" && !c->power_loss) c->power_loss = true;
    else return false;
  }
  return true;
}

std::string format_crash(const Crash& c) {
  return absl::StrCat(c.down_ms > 0 ? absl::StrFormat("%s@%.17g+%.17g", c.host, c.at_ms, c.down_ms)
                                    : absl::StrFormat("%s@%.17g", c.host, c.at_ms),
                      c.after_send ? "/after-send" : "", c.power_loss ? "/power-loss" : "");
}

std::string format_schedule(const FaultSchedule& f) {
  std::string out;
  auto add = [&out](const std::string& item) { absl::StrAppend(&out, out.empty() ? "" : "; ", item); };
  for (const auto& [host, flag] : f.host_flags) add(absl::StrCat(host, " ", flag));
  for (const Cut& c : f.cuts) add(absl::StrFormat("cut %s@%.17g+%.17g", c.host, c.from_ms, c.for_ms));
  for (const Crash& c : f.crashes) add("crash " + format_crash(c));
  return out.empty() ? "none" : out;
}

absl::StatusOr<FaultSchedule> parse_schedule(std::string_view text) {
  FaultSchedule f;
  for (absl::string_view item : absl::StrSplit(absl::string_view(text.data(), text.size()), ';', absl::SkipWhitespace())) {
    item = absl::StripAsciiWhitespace(item);
    if (item == "none") continue;
    const size_t space = item.find(' ');
    const absl::string_view head = item.substr(0, space);
    const absl::string_view rest = space == absl::string_view::npos ? "" : absl::StripAsciiWhitespace(item.substr(space));
    HostWindow w;
    auto bad = [&](const char* want) {
      return absl::InvalidArgumentError(absl::StrCat("--schedule: '", item, "' is not ", want));
    };
    if (head == "cut") {
      if (!parse_host_window(rest, false, &w)) return bad("cut HOST@FROM_MS+FOR_MS");
      f.cuts.push_back({w.host, w.from_ms, w.for_ms});
    } else if (head == "crash") {
      Crash c;
      if (!parse_crash(rest, &c)) return bad(absl::StrCat("crash ", kCrashSyntax).c_str());
      f.crashes.push_back(std::move(c));
    } else if (!head.empty() && absl::StartsWith(rest, "--") && rest.find(' ') == absl::string_view::npos) {
      f.host_flags.emplace_back(std::string(head), std::string(rest));
    } else {
      return bad("'HOST --flag=value', 'cut HOST@FROM+FOR', 'crash HOST@AT[+DOWN][/after-send][/power-loss]' or 'none'");
    }
  }
  f.description = format_schedule(f);
  return f;
}

}  // namespace nanopu::sim
