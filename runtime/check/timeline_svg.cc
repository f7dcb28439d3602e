// nanopu/lincheck.h: a violation drawn — Porcupine's picture of a failing
// history ("Porcupine", Anish Athalye), as one SVG file any browser opens
// (no script, no dependency): the failing key's operations on a time line,
// a lane per process, those that cannot be ordered in red, an operation
// whose end is unknown (info) open to the right.
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "nanopu/lincheck.h"
#include "runtime/check/operations.h"

namespace nanopu::lincheck {
namespace {

constexpr double kLeft = 110, kWidth = 960, kLane = 28, kTop = 64;
constexpr size_t kMaxOps = 400;  // around the window: a picture, not the whole key

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '&') out += "&amp;";
    else if (c == '"') out += "&quot;";
    else out += c;
  }
  return out;
}

std::string label_of(const Operation& op) {
  return absl::StrCat(op.f, "(", value_text(op.input), ")",
                      op.completed ? " \u2192 " + value_text(op.output) : std::string(" \u2192 ?"));
}

}  // namespace

std::string timeline_svg(const std::vector<HistoryEvent>& history, const Result& r) {
  if (r.verdict != Verdict::kNotLinearizable || r.window.empty()) return "";
  uint64_t total = 0;
  absl::StatusOr<std::map<std::optional<int64_t>, std::vector<Operation>>> by_key = operations_by_key(history, &total);
  if (!by_key.ok() || !by_key->contains(r.key)) return "";
  // The view: the window's span and half as much again each side.
  uint64_t lo = UINT64_MAX, hi = 0;
  for (const Operation& op : r.window) {
    lo = std::min(lo, op.invoke_ns);
    hi = std::max(hi, op.return_ns == UINT64_MAX ? op.invoke_ns : op.return_ns);
  }
  const uint64_t span = std::max<uint64_t>(hi - lo, 1);
  const uint64_t from = lo > span / 2 ? lo - span / 2 : 0, to = hi + span / 2 + 1;
  std::vector<Operation> shown;
  for (const Operation& op : by_key->at(r.key))
    if (op.invoke_ns < to && (op.return_ns == UINT64_MAX || op.return_ns >= from)) shown.push_back(op);
  if (shown.size() > kMaxOps) {  // the nearest to the window's start
    std::sort(shown.begin(), shown.end(), [&](const Operation& a, const Operation& b) {
      auto d = [&](const Operation& o) { return o.invoke_ns > lo ? o.invoke_ns - lo : lo - o.invoke_ns; };
      return d(a) < d(b);
    });
    shown.resize(kMaxOps);
  }
  std::map<uint64_t, size_t> lanes;
  for (const Operation& op : shown) lanes.emplace(op.process, 0);
  size_t lane = 0;
  for (auto& [process, index] : lanes) index = lane++;
  const double height = kTop + kLane * static_cast<double>(lanes.size()) + 40;
  auto x = [&](uint64_t t) {
    const uint64_t c = std::clamp(t, from, to);
    return kLeft + kWidth * static_cast<double>(c - from) / static_cast<double>(to - from);
  };
  std::vector<uint64_t> unordered;  // the window's operations, each once (by its invoke's event)
  for (const Operation& op : r.window)
    if (std::find(unordered.begin(), unordered.end(), op.invoke_index) == unordered.end())
      unordered.push_back(op.invoke_index);
  std::string svg = absl::StrFormat(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" font-family=\"sans-serif\" "
      "font-size=\"11\">\n<style>.op{fill:#cfe0f5;stroke:#4a77b4}.unordered{fill:#f6b8b8;stroke:#c0392b;"
      "stroke-width:2}.info{stroke-dasharray:4 3}</style>\n",
      kLeft + kWidth + 20, height);
  absl::StrAppend(&svg, absl::StrFormat(
      "<text x=\"8\" y=\"18\" font-size=\"14\">key %s (model %s): the %d operations in red cannot be ordered</text>\n"
      "<text x=\"8\" y=\"36\">%d operations of the key shown, %d ns to %d ns; a dashed one's end is unknown (info)</text>\n",
      r.key ? absl::StrCat(*r.key) : std::string("(none)"), escape(r.model), unordered.size(), shown.size(), from, to));
  for (const auto& [process, index] : lanes)
    absl::StrAppend(&svg, absl::StrFormat("<text x=\"8\" y=\"%.0f\">process %d</text>\n",
                                          kTop + kLane * static_cast<double>(index) + 16, process));
  for (const Operation& op : shown) {
    const bool bad = std::find(unordered.begin(), unordered.end(), op.invoke_index) != unordered.end();
    const double x0 = x(op.invoke_ns), x1 = std::max(x(op.return_ns == UINT64_MAX ? to : op.return_ns), x0 + 2);
    const double y = kTop + kLane * static_cast<double>(lanes[op.process]);
    absl::StrAppend(&svg, absl::StrFormat(
        "<g><title>process %d, event %d: %s, %d .. %s ns</title><rect class=\"op%s%s\" x=\"%.1f\" y=\"%.0f\" "
        "width=\"%.1f\" height=\"%.0f\"/><text x=\"%.1f\" y=\"%.0f\">%s</text></g>\n",
        op.process, op.invoke_index, escape(label_of(op)), op.invoke_ns,
        op.return_ns == UINT64_MAX ? std::string("?") : absl::StrCat(op.return_ns), bad ? " unordered" : "",
        op.completed ? "" : " info", x0, y + 2, x1 - x0, kLane - 6, x0 + 3, y + 16, escape(label_of(op))));
  }
  // A time axis: five ticks.
  const double axis = kTop + kLane * static_cast<double>(lanes.size()) + 8;
  absl::StrAppend(&svg, absl::StrFormat("<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"#555\"/>\n",
                                        kLeft, axis, kLeft + kWidth, axis));
  for (int i = 0; i <= 4; ++i) {
    const uint64_t t = from + (to - from) * static_cast<uint64_t>(i) / 4;
    absl::StrAppend(&svg, absl::StrFormat("<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">%d ns</text>\n", x(t),
                                          axis + 16, t));
  }
  return svg + "</svg>\n";
}

}  // namespace nanopu::lincheck
