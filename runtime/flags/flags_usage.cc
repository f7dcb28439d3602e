// nanopu's --help (include/nanopu/flags.h, init_flags_usage): a program's own
// flags under --help, the host runtime's 60-odd added by --helpfull.
#include <errno.h>  // program_invocation_short_name (GNU)

#include <string>
#include <string_view>
#include <vector>

#include "absl/flags/usage.h"
#include "absl/flags/usage_config.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "nanopu/flags.h"

namespace nanopu {
namespace {

// The flags every nanopu host takes (Config: this file's), which --help
// leaves to --helpfull.
bool host_runtime_file(absl::string_view file) { return absl::StrContains(file, "runtime/flags/config_flags.cc"); }

// The program's own flags, as init_flags_usage() was told (empty: all but
// the host runtime's). Set once, before the flags are parsed.
std::vector<std::string>& own_files() {
  static std::vector<std::string> files;
  return files;
}

bool own_file(absl::string_view file) {
  if (absl::StrContains(file, "absl/")) return false;
  if (own_files().empty()) return !host_runtime_file(file);
  for (const std::string& f : own_files())
    if (absl::StrContains(file, f)) return true;
  return false;
}

}  // namespace

void init_flags_usage(const char* usage) { init_flags_usage(usage, {}); }

void init_flags_usage(const char* usage, std::initializer_list<const char*> own) {
  own_files().assign(own.begin(), own.end());
  // Abseil prints "<program>: <usage>"; drop a "<program>: " the caller wrote.
  std::string_view u = usage;
  const std::string prefix = std::string(program_invocation_short_name) + ": ";
  if (u.substr(0, prefix.size()) == prefix) u.remove_prefix(prefix.size());
  // Abseil holds on to the message: a copy that lives as long as the program.
  static std::string message;
  message = absl::StrCat(absl::string_view(u.data(), u.size()),
                         own_files().empty()
                             ? "\n\n--help lists this program's own flags; --helpfull adds the host runtime's, every\n"
                               "nanopu host's (--lcores, --vdev, --ip, --backend, --poll, --transport, ...)."
                             : "\n\n--help lists this program's own flags; --helpfull lists every flag it links\n"
                               "(the host runtime's, the programs' it runs).");
  absl::SetProgramUsageMessage(message);
  absl::FlagsUsageConfig cfg;
  // Abseil's --help lists only flags from a file named like the binary;
  // here the program's own (own_file), and --helpfull every flag.
  cfg.contains_help_flags = [](absl::string_view file) { return own_file(file); };
  cfg.contains_helpshort_flags = cfg.contains_help_flags;
  cfg.normalize_filename = [](absl::string_view file) {
    // Show paths relative to the project root.
    for (absl::string_view dir : {"/lib/", "/nic/", "/scheduler/", "/model/", "/runtime/", "/apps/",
                                  "/tools/", "/bench/", "/examples/"}) {
      const size_t pos = file.rfind(dir);
      if (pos != absl::string_view::npos) return std::string(file.substr(pos + 1));
    }
    return std::string(file);
  };
  cfg.version_string = [] { return std::string("nanopu 0.1.0\n"); };
  absl::SetFlagsUsageConfig(cfg);
}

}  // namespace nanopu
