#include "runtime/program/host_flags.h"

#include <algorithm>

#include "absl/flags/reflection.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace nanopu::program {
namespace {

// Host flags that mean something only on a real port or a real machine,
// and those the simulation itself sets per host. --boot_msg: its target is
// one per process (apps/boot), so two servers of one simulation would
// share it.
constexpr std::string_view kNotInVirtualTime[] = {"backend", "uring_sqpoll", "huge", "pcap", "pcap_snap",
                                                  "telemetry", "extra_eal_args", "boot_msg"};
constexpr std::string_view kSetBySimulation[] = {"history", "state_dir"};

}  // namespace

bool flag_defined_in(const absl::CommandLineFlag& flag, std::initializer_list<std::string_view> pattern) {
  // The file's place in the source tree, whatever directory holds the tree.
  const std::string path = flag.Filename();
  std::string_view file = path;
  if (file.size() < 3 || file.substr(file.size() - 3) != ".cc") return false;
  file.remove_suffix(3);
  auto name_chars = [](char c) { return (c >= 'a' && c <= 'z') || c == '_'; };
  for (auto want = std::rbegin(pattern); want != std::rend(pattern); ++want) {
    if (file.empty()) return false;  // the path has fewer components
    const size_t slash = file.rfind('/');
    const std::string_view got = slash == std::string_view::npos ? file : file.substr(slash + 1);
    if (*want != "*" ? got != *want : got.empty() || !std::all_of(got.begin(), got.end(), name_chars)) return false;
    file = slash == std::string_view::npos ? std::string_view() : file.substr(0, slash);
  }
  return true;
}

bool is_host_flag(const absl::CommandLineFlag& flag) { return flag_defined_in(flag, {"runtime", "flags", "*"}); }

bool program_has_flag(const ProgramSpec& spec, const absl::CommandLineFlag& flag) {
  if (is_host_flag(flag)) return true;
  // A client's load flags (nanopu/loadgen_main.h: --server_ip, --rate, ...).
  if (spec.client && flag_defined_in(flag, {"runtime", "client_main", "*"})) return true;
  const std::string name(flag.Name());
  if (spec.has_flag) return spec.has_flag(name);
  if (!spec.flags.empty()) return std::find(spec.flags.begin(), spec.flags.end(), name) != spec.flags.end();
  // Any flag of the binary but the simulator's and program_main's own.
  return !flag_defined_in(flag, {"runtime", "simulation", "*"});
}

absl::Status set_program_flag(const ProgramSpec& spec, const std::string& arg, bool simulated) {
  if (!absl::StartsWith(arg, "-")) return absl::InvalidArgumentError("'" + arg + "' is not a flag");
  std::string body = arg.substr(arg.size() > 1 && arg[1] == '-' ? 2 : 1);
  const size_t eq = body.find('=');
  std::string name = body.substr(0, eq), value = eq == std::string::npos ? "" : body.substr(eq + 1);
  absl::CommandLineFlag* flag = absl::FindCommandLineFlag(name);
  if (flag == nullptr && eq == std::string::npos && absl::StartsWith(name, "no")) {
    flag = absl::FindCommandLineFlag(name.substr(2));
    if (flag != nullptr && flag->IsOfType<bool>()) name = name.substr(2), value = "false";
    else flag = nullptr;
  } else if (flag != nullptr && eq == std::string::npos) {
    if (!flag->IsOfType<bool>()) return absl::InvalidArgumentError("--" + name + " needs a value (--" + name + "=...)");
    value = "true";
  }
  if (flag == nullptr || !program_has_flag(spec, *flag))
    return absl::InvalidArgumentError(absl::StrCat("unknown flag --", name, " (program ", spec.name, " has none)"));
  if (simulated) {
    for (std::string_view no : kNotInVirtualTime)
      if (name == no) return absl::InvalidArgumentError("--" + name + " does not apply in virtual time (nanopu-sim)");
    for (std::string_view no : kSetBySimulation)
      if (name == no)
        return absl::InvalidArgumentError("--" + name + " is the simulation's to set (a run's --history records every "
                                          "host; each host's state directory is made by the run)");
  }
  std::string error;
  if (!flag->ParseFrom(value, &error)) return absl::InvalidArgumentError("--" + name + ": " + error);
  return absl::OkStatus();
}

absl::Status check_command_line_flags(const ProgramSpec& spec) {
  // A flag away from its default was set (this Abseil keeps "specified on
  // the command line" private; one set to its default harms nothing).
  for (const auto& [name, flag] : absl::GetAllFlags())
    if (flag->CurrentValue() != flag->DefaultValue() && !program_has_flag(spec, *flag) &&
        !flag_defined_in(*flag, {"runtime", "simulation", "*"}))
      return absl::InvalidArgumentError(absl::StrCat("--", name, " is not a flag of program ", spec.name));
  return absl::OkStatus();
}

FlagScope::FlagScope() {
  for (const auto& [name, flag] : absl::GetAllFlags()) saved_.emplace_back(flag, flag->CurrentValue());
}

FlagScope::~FlagScope() {
  std::string error;
  for (auto& [flag, value] : saved_)
    if (flag->CurrentValue() != value) (void)flag->ParseFrom(value, &error);
}

}  // namespace nanopu::program
