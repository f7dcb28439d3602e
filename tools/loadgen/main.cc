// nanopu-loadgen: open- or closed-loop load against a nanopu (or nanoPU)
// server. loadgen_program.cc reads the flags, runs the --service's client
// and prints the result; this file parses and runs.
#include <cstdio>
#include <memory>
#include <string>

#include "absl/flags/flag.h"
#include "nanopu/flags.h"
#include "nanopu/history.h"
#include "nanopu/runtime.h"
#include "nanopu/program_flags.h"
#include "runtime/client_main/load_flags.h"
#include "tools/loadgen/loadgen_program.h"

namespace {

int fail(const std::string& msg, int code = 2) {
  std::fprintf(stderr, "nanopu-loadgen: %s\n", msg.c_str());
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  nanopu::loadgen::set_client_defaults();
  nanopu::init_flags_usage(
      "send requests to a nanopu server and report throughput and latency.\n"
      "Example (client end of a net_memif pair, on lcore 0):\n"
      "  nanopu-loadgen --lcores=0 --vdev='net_memif0,role=client,socket=/tmp/nanopu.sock' \\\n"
      "      --rate=100000 --duration=10 --json=out.json\n"
      "Exit status: 0 all replies arrived and checked, 3 some lost, given up or wrong, 1/2 errors.");
  nanopu::parse_flags(argc, argv);
  absl::StatusOr<nanopu::Config> config = nanopu::Config::from_flags();
  if (!config.ok()) return fail(std::string(config.status().message()));
  std::unique_ptr<nanopu::History> history;  // --history: the kv, chain and Raft clients' requests
  if (const std::string path = absl::GetFlag(FLAGS_history); !path.empty() && !absl::GetFlag(FLAGS_check_flags)) {
    absl::StatusOr<std::unique_ptr<nanopu::History>> h = nanopu::History::open(path);
    if (!h.ok()) return fail(std::string(h.status().message()));
    history = std::move(*h);
  }
  absl::StatusOr<std::unique_ptr<nanopu::Program>> program = nanopu::apps::make_loadgen_program(*config, history.get());
  if (!program.ok()) return fail(std::string(program.status().message()));
  if (absl::GetFlag(FLAGS_check_flags)) return 0;  // every flag checked; nothing started
  absl::StatusOr<std::unique_ptr<nanopu::Runtime>> rt = nanopu::Runtime::create(*config);
  if (!rt.ok()) return fail(std::string(rt.status().message()), 1);
  if (absl::Status s = (*program)->spawn(**rt); !s.ok()) return fail(std::string(s.message()), 1);
  nanopu::Runtime::install_signal_handlers();
  if (absl::Status s = (*rt)->run(); !s.ok()) return fail(std::string(s.message()), 1);
  const int status = (*program)->report(**rt, stdout);
  if (history != nullptr) {
    history->end(history->latest_time_ns());
    if (absl::Status s = history->flush(); !s.ok()) return fail(std::string(s.message()), 1);
  }
  return status;
}
