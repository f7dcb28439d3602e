// nanopu::parse_flags (nanopu/flags.h): abseil's ParseCommandLine, after a
// check of its own. Abseil exits 1 on a flag it does not know or a value it
// cannot parse; nanopu's tools document 1 as "the run failed" (a seed, a
// history, a client), so a typo must say "usage" (2) instead — a campaign
// script that reads 1 as a found bug would otherwise report a typo as one.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "absl/flags/parse.h"
#include "absl/flags/reflection.h"
#include "nanopu/flags.h"

namespace nanopu {
namespace {

// "" when `arg` (one "--name[=value]" word) names a flag with a value it
// takes, else why not.
std::string check_flag(std::string_view arg, std::string_view next_word, bool* takes_next) {
  *takes_next = false;
  arg.remove_prefix(arg.substr(0, 2) == "--" ? 2 : 1);
  const size_t eq = arg.find('=');
  const std::string name(arg.substr(0, eq));
  // Abseil's own (usage, flag files), which it handles before any flag.
  for (const char* own : {"help", "helpfull", "helpshort", "helppackage", "helpon", "helpmatch", "version",
                          "only_check_args", "flagfile", "fromenv", "tryfromenv", "undefok"})
    if (name == own) return "";
  absl::CommandLineFlag* f = absl::FindCommandLineFlag(name);
  if (f == nullptr && name.substr(0, 2) == "no" && eq == std::string_view::npos) {  // --noverbose
    absl::CommandLineFlag* b = absl::FindCommandLineFlag(name.substr(2));
    if (b != nullptr && b->IsOfType<bool>()) return "";
  }
  if (f == nullptr) return "unknown flag '--" + name + "'";
  std::string value;
  if (eq != std::string_view::npos) value = std::string(arg.substr(eq + 1));
  else if (f->IsOfType<bool>()) return "";
  else {  // "--name value": abseil takes the next word
    *takes_next = true;
    value = std::string(next_word);
  }
  // Parsed into a copy's worth of checking: ParseCommandLine sets it again.
  std::string error;
  if (!f->ParseFrom(value, &error)) return "bad value for --" + name + ": " + error;
  return "";
}

}  // namespace

std::vector<char*> parse_flags(int argc, char** argv) {
  const char* self = argc > 0 ? argv[0] : "nanopu";
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "--") break;  // the rest is positional
    if (a.size() < 2 || a[0] != '-') continue;
    bool takes_next = false;
    const std::string why = check_flag(a, i + 1 < argc ? argv[i + 1] : "", &takes_next);
    if (!why.empty()) {
      std::fprintf(stderr, "%s: %s (try --help)\n", self, why.c_str());
      std::exit(2);
    }
    i += takes_next;
  }
  return absl::ParseCommandLine(argc, argv);
}

}  // namespace nanopu
