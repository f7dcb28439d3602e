// nanopu-server: loopback services on one emulated nanoPU host.
#include <cstdio>
#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "apps/loopback/loopback.h"
#include "nanopu/flags.h"
#include "nanopu/runtime.h"

ABSL_FLAG(std::string, app, "echo",
          "Service to run: 'echo' (reply = request), 'increment' (every word + 1), 'service' "
          "(docs/apps.md load-generator service: spin service_time cycles at 3.2 GHz, then echo; "
          "service_time 0 ends the thread), 'lnic-increment' (the paper's Listing 1 written "
          "with lnic.h).");
ABSL_FLAG(uint32_t, context, 1, "First context (L4 port) served.");
ABSL_FLAG(uint32_t, threads, 1,
          "Threads to run; thread i serves context + i, spread round-robin over the workers.");
ABSL_FLAG(uint32_t, priority, 0, "Priority of the service threads (0 is best).");
ABSL_FLAG(bool, stats, true, "Print the NIC and thread counters on exit.");

int main(int argc, char** argv) {
  nanopu::init_flags_usage(
      "run loopback services on an emulated nanoPU host.\n"
      "Example (server end of a net_memif pair, NIC and worker on lcore 1):\n"
      "  nanopu-server --lcores=1 --vdev='net_memif0,role=server,socket=/tmp/nanopu.sock'\n"
      "Stop with Ctrl-C (SIGINT) or SIGTERM; counters are printed on exit.");
  absl::ParseCommandLine(argc, argv);
  absl::StatusOr<nanopu::Config> config = nanopu::Config::from_flags();
  if (!config.ok()) {
    std::fprintf(stderr, "nanopu-server: %s\n", std::string(config.status().message()).c_str());
    return 2;
  }
  const std::string app = absl::GetFlag(FLAGS_app);
  nanopu::apps::LoopbackMode mode = nanopu::apps::LoopbackMode::kEcho;
  bool lnic = false;
  if (app == "echo") mode = nanopu::apps::LoopbackMode::kEcho;
  else if (app == "increment") mode = nanopu::apps::LoopbackMode::kIncrement;
  else if (app == "service") mode = nanopu::apps::LoopbackMode::kService;
  else if (app == "lnic-increment") lnic = true;
  else {
    std::fprintf(stderr, "nanopu-server: --app='%s': use echo, increment, service or lnic-increment\n",
                 app.c_str());
    return 2;
  }
  const uint32_t first = absl::GetFlag(FLAGS_context);
  const uint32_t threads = absl::GetFlag(FLAGS_threads);
  const uint32_t priority = absl::GetFlag(FLAGS_priority);
  if (threads == 0 || first + threads > 0x10000 || priority > 0xff) {
    std::fprintf(stderr, "nanopu-server: --context + --threads must stay below 65536, --threads >= 1, "
                         "--priority <= 255\n");
    return 2;
  }

  absl::StatusOr<std::unique_ptr<nanopu::Runtime>> rt = nanopu::Runtime::create(*config);
  if (!rt.ok()) {
    std::fprintf(stderr, "nanopu-server: %s\n", std::string(rt.status().message()).c_str());
    return 1;
  }
  const uint32_t workers = static_cast<uint32_t>(config->worker_count());
  for (uint32_t i = 0; i < threads; ++i) {
    const auto ctx = static_cast<uint16_t>(first + i);
    auto body = [=](nanopu::Thread& t) {
      if (lnic) nanopu_lnic_loopback_plus1(ctx);
      else (void)nanopu::apps::serve_loopback(t, ctx, static_cast<uint8_t>(priority), mode);
    };
    if (absl::StatusOr<nanopu::Thread*> t = (*rt)->spawn(body, i % workers); !t.ok()) {
      std::fprintf(stderr, "nanopu-server: %s\n", std::string(t.status().message()).c_str());
      return 1;
    }
  }
  nanopu::Runtime::install_signal_handlers();
  std::fprintf(stderr, "nanopu-server: %s on %u.%u.%u.%u contexts %u..%u, %u worker(s)%s; Ctrl-C stops\n",
               app.c_str(), config->ip >> 24, (config->ip >> 16) & 0xff, (config->ip >> 8) & 0xff,
               config->ip & 0xff, first, first + threads - 1, workers,
               config->shared_core() ? " sharing the NIC core" : "");
  if (absl::Status s = (*rt)->run(); !s.ok()) {
    std::fprintf(stderr, "nanopu-server: %s\n", std::string(s.message()).c_str());
    return 1;
  }
  if (absl::GetFlag(FLAGS_stats)) (*rt)->print_stats(stderr);
  return 0;
}
