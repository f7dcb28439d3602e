// A program's flags (nanopu/program.h): which flags a program has, and one
// host's flags set for the time its program is made. nanopu's own flags
// are told apart by the file that defines them (one binary holds several
// programs, so the flag registry alone would take any program's flags for
// every other's).
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/flags/commandlineflag.h"
#include "absl/status/status.h"
#include "nanopu/program.h"

namespace nanopu::program {

// Whether the flag's defining file ends in `pattern`'s components, "*"
// standing for any [a-z_]+ name (the file's own name without ".cc").
[[nodiscard]] bool flag_defined_in(const absl::CommandLineFlag& flag, std::initializer_list<std::string_view> pattern);
// nanopu's host flags (runtime/flags: Config and the flags every program shares).
[[nodiscard]] bool is_host_flag(const absl::CommandLineFlag& flag);
// Whether a host running `spec` may set `flag`: a host flag, a client's
// load flag (runtime/client_main) for a client, or one of the program's
// (ProgramSpec::flags / has_flag; any but the simulator's own when it
// names none).
[[nodiscard]] bool program_has_flag(const ProgramSpec& spec, const absl::CommandLineFlag& flag);

// One flag ("--name=value", "--name" or "--noname" for a bool) set for a
// host running `spec`; on the modelled clock (`simulated`) the flags that
// mean something only on a real port or machine are refused.
[[nodiscard]] absl::Status set_program_flag(const ProgramSpec& spec, const std::string& arg, bool simulated);

// Live: every flag the command line gave is one of `spec`'s.
[[nodiscard]] absl::Status check_command_line_flags(const ProgramSpec& spec);

// Every flag's value when made, put back when it goes: each host's flags
// are its own. (absl::FlagSaver does the same but logs every flag it puts
// back.)
class FlagScope {
 public:
  FlagScope();
  ~FlagScope();
  FlagScope(const FlagScope&) = delete;
  FlagScope& operator=(const FlagScope&) = delete;

 private:
  std::vector<std::pair<absl::CommandLineFlag*, std::string>> saved_;
};

}  // namespace nanopu::program
