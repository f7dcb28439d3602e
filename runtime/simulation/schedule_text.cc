// nanopu/sim.h: a fault schedule as one line and back — what a shrunk
// schedule's replay command carries (dst --schedule). Exact: a cut's and a
// crash's times at 17 significant digits, so the replay is the run.
#include <cmath>
#include <string>
#include <string_view>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "nanopu/sim.h"

namespace nanopu::sim {
namespace {

bool ms_ok(double v) { return std::isfinite(v) && v >= 0 && v <= 1e9; }

// "HOST@A+B" or, when `open_ended`, "HOST@A" (B = 0).
bool parse_window(absl::string_view w, bool open_ended, std::string* host, double* a, double* b) {
  const size_t at = w.find('@');
  if (at == absl::string_view::npos || at == 0) return false;
  *host = std::string(w.substr(0, at));
  const size_t plus = w.find('+', at);
  *b = 0;
  if (plus == absl::string_view::npos)
    return open_ended && absl::SimpleAtod(w.substr(at + 1), a) && ms_ok(*a);
  return absl::SimpleAtod(w.substr(at + 1, plus - at - 1), a) && absl::SimpleAtod(w.substr(plus + 1), b) &&
         ms_ok(*a) && ms_ok(*b) && *b > 0;
}

}  // namespace

std::string format_schedule(const FaultSchedule& f) {
  std::string out;
  auto add = [&out](const std::string& item) { absl::StrAppend(&out, out.empty() ? "" : "; ", item); };
  for (const auto& [host, flag] : f.host_flags) add(absl::StrCat(host, " ", flag));
  for (const Cut& c : f.cuts) add(absl::StrFormat("cut %s@%.17g+%.17g", c.host, c.from_ms, c.for_ms));
  for (const Crash& c : f.crashes)
    add(c.down_ms > 0 ? absl::StrFormat("crash %s@%.17g+%.17g", c.host, c.at_ms, c.down_ms)
                      : absl::StrFormat("crash %s@%.17g", c.host, c.at_ms));
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
    std::string host;
    double a = 0, b = 0;
    auto bad = [&](const char* want) {
      return absl::InvalidArgumentError(absl::StrCat("--schedule: '", item, "' is not ", want));
    };
    if (head == "cut") {
      if (!parse_window(rest, false, &host, &a, &b)) return bad("cut HOST@FROM_MS+FOR_MS");
      f.cuts.push_back({host, a, b});
    } else if (head == "crash") {
      if (!parse_window(rest, true, &host, &a, &b)) return bad("crash HOST@AT_MS[+DOWN_MS]");
      f.crashes.push_back({host, a, b});
    } else if (!head.empty() && absl::StartsWith(rest, "--") && rest.find(' ') == absl::string_view::npos) {
      f.host_flags.emplace_back(std::string(head), std::string(rest));
    } else {
      return bad("'HOST --flag=value', 'cut HOST@FROM+FOR', 'crash HOST@AT[+DOWN]' or 'none'");
    }
  }
  f.description = format_schedule(f);
  return f;
}

}  // namespace nanopu::sim
