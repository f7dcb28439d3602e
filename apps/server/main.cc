// nanopu-server: the services of apps/ on one emulated nanoPU host. Each
// --app is a ServerApp of its service's folder (apps/<service>/server_app.cc,
// with its own flags); server_program.cc reads the common flags, starts the
// threads and prints the counters; this file parses and runs.
#include <cstdio>
#include <memory>
#include <string>

#include "absl/flags/flag.h"
#include "apps/server/server_program.h"
#include "nanopu/flags.h"
#include "nanopu/runtime.h"
#include "nanopu/program_flags.h"

namespace {

int fail(const std::string& why, int code) {
  std::fprintf(stderr, "nanopu-server: %s\n", why.c_str());
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  nanopu::init_flags_usage(
      "run a service of apps/ on an emulated nanoPU host.\n"
      "Example (server end of a net_memif pair, NIC and worker on lcore 1):\n"
      "  nanopu-server --lcores=1 --vdev='net_memif0,role=server,socket=/tmp/nanopu.sock'\n"
      "Stop with Ctrl-C (SIGINT) or SIGTERM; counters are printed on exit.");
  absl::SetFlag(&FLAGS_stats, true);  // a server prints its counters on exit by default
  nanopu::parse_flags(argc, argv);
  absl::StatusOr<nanopu::Config> config = nanopu::Config::from_flags();
  if (!config.ok()) return fail(std::string(config.status().message()), 2);
  absl::StatusOr<std::unique_ptr<nanopu::Program>> program = nanopu::apps::make_server_program(*config);
  if (!program.ok()) return fail(std::string(program.status().message()), 2);
  if (absl::GetFlag(FLAGS_check_flags)) return 0;  // every flag checked; nothing started
  absl::StatusOr<std::unique_ptr<nanopu::Runtime>> rt = nanopu::Runtime::create(*config);
  if (!rt.ok()) return fail(std::string(rt.status().message()), 1);
  if (absl::Status s = (*program)->spawn(**rt); !s.ok()) return fail(std::string(s.message()), 1);
  nanopu::Runtime::install_signal_handlers();
  std::fprintf(stderr, "%s; Ctrl-C stops\n", (*program)->banner().c_str());
  if (absl::Status s = (*rt)->run(); !s.ok()) return fail(std::string(s.message()), 1);
  return (*program)->report(**rt, stdout);
}
