#include "runtime/program/run_live.h"

#include <cstdio>
#include <memory>
#include <string>

#include "absl/flags/flag.h"
#include "nanopu/flags.h"
#include "nanopu/program_flags.h"
#include "runtime/program/host_flags.h"

namespace nanopu::program {
namespace {

int fail(const ProgramSpec& spec, const std::string& why, int code) {
  std::fprintf(stderr, "%s: %s\n", spec.name.c_str(), why.c_str());
  return code;
}

}  // namespace

int run_live(const ProgramSpec& spec) {
  if (absl::Status s = check_command_line_flags(spec); !s.ok()) return fail(spec, std::string(s.message()), 2);
  absl::StatusOr<Config> config = Config::from_flags();
  if (!config.ok()) return fail(spec, std::string(config.status().message()), 2);
  std::unique_ptr<History> history;
  ProgramArgs args;
  args.config = *config;
  args.seed = absl::GetFlag(FLAGS_seed);
  args.state_dir = absl::GetFlag(FLAGS_state_dir);
  const std::string history_path = absl::GetFlag(FLAGS_history);
  if (!history_path.empty() && !absl::GetFlag(FLAGS_check_flags)) {
    absl::StatusOr<std::unique_ptr<History>> h = History::open(history_path);
    if (!h.ok()) return fail(spec, std::string(h.status().message()), 2);
    history = std::move(*h);
    args.history = history.get();
  }
  absl::StatusOr<std::unique_ptr<Program>> program = spec.make(args);
  if (!program.ok()) return fail(spec, std::string(program.status().message()), 2);
  if (*program == nullptr) return fail(spec, "its factory made nothing", 1);
  if (absl::GetFlag(FLAGS_check_flags)) return 0;  // every flag checked; nothing started
  absl::StatusOr<std::unique_ptr<Runtime>> rt = Runtime::create(*config);
  if (!rt.ok()) return fail(spec, std::string(rt.status().message()), 1);
  if (absl::Status s = (*program)->spawn(**rt); !s.ok()) return fail(spec, std::string(s.message()), 1);
  Runtime::install_signal_handlers();
  if (const std::string b = (*program)->banner(); !b.empty()) std::fprintf(stderr, "%s; Ctrl-C stops\n", b.c_str());
  if (absl::Status s = (*rt)->run(); !s.ok()) return fail(spec, std::string(s.message()), 1);
  const int status = (*program)->report(**rt, stdout);
  if (history != nullptr) {
    history->end(history->latest_time_ns());  // calls still open when the host stopped: outcome unknown
    if (absl::Status s = history->flush(); !s.ok()) return fail(spec, std::string(s.message()), 1);
  }
  return status;
}

}  // namespace nanopu::program
