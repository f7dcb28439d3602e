// nanopu-lincheck: is a history linearizable? (nanopu/lincheck.h)
//   nanopu-lincheck FILE --model=register|counter|versioned
// FILE: JSON lines in Jepsen's model (nanopu/history.h; a simulation's
// --history, a live client's --history). Exit status 0 linearizable, 1 not
// (the operations that cannot be ordered are printed, with their times),
// 2 bad input (the file and line named), 3 unknown (a budget ran out).
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/numbers.h"
#include "nanopu/flags.h"
#include "nanopu/history.h"
#include "nanopu/lincheck.h"

ABSL_FLAG(std::string, model, "register",
          "The object the history's operations act on: 'register' (read, write, cas; a key never "
          "written reads null), 'counter' (incr, read; starts at 0) or 'versioned' (a register of "
          "[value, version] whose versions rise with each write).");
ABSL_FLAG(double, seconds, 60, "The search's time budget; past it the verdict is 'unknown' (exit 3).");
ABSL_FLAG(uint64_t, max_states, 20'000'000,
          "The search's memory budget: configurations remembered; past it the verdict is 'unknown' (exit 3).");
ABSL_FLAG(std::string, svg, "",
          "For a history that is not linearizable: draw the failing key's operations on a time line into "
          "this file (an SVG; the ones that cannot be ordered in red).");

namespace {

int fail(const std::string& why) {
  std::fprintf(stderr, "nanopu-lincheck: %s\n", why.c_str());
  return 2;
}

// "event N: ..." as "FILE:LINE: ..." (events are numbered by line).
std::string at_line(const std::string& path, const std::string& message) {
  const std::string head = "event ";
  const size_t space = message.find_first_of(" :", head.size());
  uint64_t index = 0;
  if (message.rfind(head, 0) != 0 || space == std::string::npos ||
      !absl::SimpleAtoi(message.substr(head.size(), space - head.size()), &index))
    return path + ": " + message;
  return path + ":" + std::to_string(index + 1) + ":" + message.substr(space);
}

}  // namespace

int main(int argc, char** argv) {
  nanopu::init_flags_usage(
      "is a history linearizable?\n"
      "  nanopu-lincheck FILE --model=register|counter|versioned [--svg=PICTURE.svg]\n"
      "FILE: JSON lines in Jepsen's model, as nanopu writes them (--history). Exit status 0\n"
      "linearizable, 1 not (the operations that cannot be ordered are printed), 2 bad input,\n"
      "3 unknown (--seconds or --max_states ran out). --svg draws a violation: the failing key's\n"
      "operations on a time line, those that cannot be ordered in red (open it in a browser).",
      {"tools/lincheck/"});
  std::vector<char*> args = nanopu::parse_flags(argc, argv);
  if (args.size() != 2) return fail("expected one history file (--help)");
  const std::string path = args[1];
  std::ifstream in(path);
  if (!in) return fail("cannot read " + path);
  std::vector<nanopu::HistoryEvent> events;
  std::string line;
  for (uint64_t number = 1; std::getline(in, line); ++number) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    absl::StatusOr<nanopu::HistoryEvent> e = nanopu::parse_history_line(line);
    if (!e.ok()) return fail(path + ":" + std::to_string(number) + ": " + std::string(e.status().message()));
    e->index = number - 1;
    events.push_back(std::move(*e));
  }
  if (events.empty()) return fail(path + ": no event");
  nanopu::lincheck::Limits limits;
  limits.seconds = absl::GetFlag(FLAGS_seconds);
  limits.max_states = absl::GetFlag(FLAGS_max_states);
  if (!(limits.seconds > 0) || limits.max_states == 0) return fail("--seconds and --max_states must be > 0");
  absl::StatusOr<nanopu::lincheck::Result> r = nanopu::lincheck::check(events, absl::GetFlag(FLAGS_model), limits);
  if (!r.ok()) return fail(at_line(path, std::string(r.status().message())));
  std::printf("%s: %s\n", path.c_str(), nanopu::lincheck::describe(*r).c_str());
  if (const std::string svg_path = absl::GetFlag(FLAGS_svg);
      !svg_path.empty() && r->verdict == nanopu::lincheck::Verdict::kNotLinearizable) {
    std::ofstream svg(svg_path);
    if (!(svg << nanopu::lincheck::timeline_svg(events, *r)) || !svg.flush()) return fail("cannot write " + svg_path);
    std::printf("the failing key's operations drawn in %s\n", svg_path.c_str());
  }
  switch (r->verdict) {
    case nanopu::lincheck::Verdict::kLinearizable: return 0;
    case nanopu::lincheck::Verdict::kNotLinearizable: return 1;
    case nanopu::lincheck::Verdict::kUnknown: return 3;
  }
  return 3;
}
