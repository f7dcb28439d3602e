#include "tools/sim/sim_hosts.h"

#include <algorithm>
#include <initializer_list>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/reflection.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/match.h"
#include "lib/base/mix64.h"
#include "lib/contract/clock.h"
#include "nanopu/program_flags.h"
#include "runtime/loadgen/load_flags.h"
#include "tools/loadgen/loadgen_program.h"

ABSL_DECLARE_FLAG(uint32_t, mbufs);

namespace nanopu::sim {
namespace {

// Whether the path ends in `pattern`'s components, "*" standing for any
// [a-z_]+ name and the file's own name ending ".cc" (the tree's file names).
bool path_ends_in(std::string_view file, std::initializer_list<std::string_view> pattern) {
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

// Whether `flag` is one of `role`'s program's: nanopu-server has the host
// flags and apps/'s; nanopu-loadgen the host flags, the load flags, its
// services' and the flags a service's server and client share. Flags are
// told apart by the file that defines them (nanopu-sim links both
// programs, so the registry alone would take either's flags for both).
bool program_has(Role role, const absl::CommandLineFlag& flag) {
  // The file's place in the source tree, whatever directory holds the tree.
  const std::string file = flag.Filename();
  if (path_ends_in(file, {"runtime", "flags", "*"})) return true;
  if (role == Role::kServer) return path_ends_in(file, {"apps", "*", "*"});
  return path_ends_in(file, {"runtime", "loadgen", "*"}) || path_ends_in(file, {"tools", "loadgen", "*"}) ||
         path_ends_in(file, {"tools", "loadgen", "cli", "*"}) ||
         path_ends_in(file, {"apps", "server", "service_flags"});
}

// Host flags that mean something only on a real port or a real machine.
// --boot_msg: its target is one per process (apps/boot), so two servers of
// one simulation would share it.
constexpr std::string_view kNotInVirtualTime[] = {"backend", "uring_sqpoll", "huge", "pcap", "pcap_snap",
                                                  "telemetry", "extra_eal_args", "boot_msg"};

// One host flag ("--name=value", "--name" or "--noname" for a bool) set.
absl::Status set_flag(Role role, const std::string& arg) {
  if (!absl::StartsWith(arg, "-")) return absl::InvalidArgumentError("'" + arg + "' is not a flag");
  std::string body = arg.substr(arg[1] == '-' ? 2 : 1);
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
  const char* program = role == Role::kServer ? "nanopu-server" : "nanopu-loadgen";
  if (flag == nullptr || !program_has(role, *flag))
    return absl::InvalidArgumentError(absl::StrCat("unknown flag --", name, " (", program, " has none)"));
  for (std::string_view no : kNotInVirtualTime)
    if (name == no) return absl::InvalidArgumentError("--" + name + " does not apply in virtual time (nanopu-sim)");
  std::string error;
  if (!flag->ParseFrom(value, &error)) return absl::InvalidArgumentError("--" + name + ": " + error);
  return absl::OkStatus();
}

// A host's boot within the first microsecond, from the seed: hosts of a
// real cluster do not boot at one instant, and another seed is another run.
uint64_t start_offset_ticks(uint64_t seed, size_t index) {
  return mix64(seed * kGoldenGamma + index + 1) % (clock::hz() / 1'000'000 + 1);  // up to 1 us
}

// Every flag's value when made, put back when it goes: each host's flags
// are its own. (absl::FlagSaver does the same but logs every flag it puts
// back.)
class FlagScope {
 public:
  FlagScope() {
    for (const auto& [name, flag] : absl::GetAllFlags()) saved_.emplace_back(flag, flag->CurrentValue());
  }
  ~FlagScope() {
    std::string error;
    for (auto& [flag, value] : saved_)
      if (flag->CurrentValue() != value) (void)flag->ParseFrom(value, &error);
  }
  FlagScope(const FlagScope&) = delete;
  FlagScope& operator=(const FlagScope&) = delete;

 private:
  std::vector<std::pair<absl::CommandLineFlag*, std::string>> saved_;
};

absl::StatusOr<SimHost> make_host(const TopologyHost& h, uint64_t seed, size_t index) {
  FlagScope scope;
  // Each program's defaults where they differ (as its main sets them);
  // a server's counters only when asked for (--stats): the summary is the
  // load generators'.
  absl::SetFlag(&FLAGS_stats, false);
  absl::SetFlag(&FLAGS_mbufs, 4095);  // many hosts share one process's memory
  if (h.role == Role::kLoadgen) loadgen::set_client_defaults();
  absl::SetFlag(&FLAGS_seed, seed * 1000003 + index + 1);  // unless its line gives one
  for (const std::string& f : h.flags)
    if (absl::Status s = set_flag(h.role, f); !s.ok()) return s;
  absl::StatusOr<Config> config = Config::from_flags();
  if (!config.ok()) return config.status();
  config->ip = h.ip;
  if (config->lcores.size() != 1 || config->lcores.front() != 0)
    return absl::InvalidArgumentError("--lcores: one core per host in virtual time");
  config->telemetry = false;
  config->link_wait_s = 0;
  SimHost host;
  host.topo = &h;
  host.index = index;
  host.config = *config;
  absl::StatusOr<std::unique_ptr<apps::HostProgram>> p =
      h.role == Role::kServer ? apps::make_server_program(*config) : apps::make_loadgen_program(*config);
  if (!p.ok()) return p.status();
  host.program = std::move(*p);
  host.start_at_ticks = start_offset_ticks(seed, index);
  return host;
}

}  // namespace

absl::StatusOr<SimHost> make_sim_host(const Topology& t, size_t index, uint64_t seed) {
  const TopologyHost& h = t.hosts[index];
  absl::StatusOr<SimHost> host = make_host(h, seed, index);
  if (!host.ok())
    return absl::InvalidArgumentError(absl::StrCat(t.path, ":", h.line, ": host ", h.name, ": ", host.status().message()));
  return host;
}

absl::StatusOr<std::vector<SimHost>> make_sim_hosts(const Topology& t, uint64_t seed) {
  std::vector<SimHost> hosts;
  for (size_t i = 0; i < t.hosts.size(); ++i) {
    absl::StatusOr<SimHost> host = make_sim_host(t, i, seed);
    if (!host.ok()) return host.status();
    hosts.push_back(std::move(*host));
  }
  return hosts;
}

}  // namespace nanopu::sim
