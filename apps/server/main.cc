// nanopu-server: the services of apps/ on one emulated nanoPU host. Each
// --app is a ServerApp of its service's folder (apps/<service>/server_app.cc,
// with its own flags); this file reads the common flags, starts the threads
// and prints the counters.
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "apps/boot/bind_service.h"
#include "apps/boot/boot_message.h"
#include "apps/server/server_app.h"
#include "nanopu/address.h"
#include "nanopu/flags.h"
#include "nanopu/runtime.h"

ABSL_FLAG(bool, check_flags, false,
          "Check every flag, then exit: 0 if they are all good, 2 with one line naming the bad "
          "one (deployment scripts validate a topology this way; nothing is started).");
ABSL_FLAG(std::string, app, "echo",
          "Service to run: 'echo' (reply = request), 'increment' (every word + 1), 'service' "
          "(docs/apps.md load-generator service: spin service_time cycles at 3.2 GHz, then echo; "
          "service_time 0 ends the thread), 'lnic-increment' (the paper's Listing 1 written "
          "with lnic.h), 'kv' (MICA key-value store, register-file variant: values move "
          "between FIFOs and the store's log directly), 'kv-naive' (the same store, values "
          "copied through memory first), 'chain' (a chain-replication replica: stores WRITEs, "
          "forwards them down the chain the message names, acknowledges at the tail, answers "
          "READs; run one per host), 'rdma' (one-sided read, write, compare-and-swap, "
          "fetch-and-add and indirect read on a registered region of --rdma_region_kb, every "
          "access bounds-checked; all threads share the region), 'raft' (a Raft server of "
          "--raft_cluster with a 16-byte-key, 64-byte-value store), 'dot' (dot product against "
          "weight[i] = i, words multiplied as they are read from the FIFO; the packet tester's "
          "and Listing 2's layouts), 'dot-naive' (the same, the message copied to memory first), "
          "'service-tester' (the packet tester's service-time layout: CONFIG {0, ...} not "
          "answered, DATA {1, service_time, ...} spun then echoed), 'loopback-throughput' (the "
          "tester's throughput layout: DATA echoed, the last of a CONFIG's num_msgs carrying its "
          "timestamp), and the compute services 'setint' (set intersection: an inverted index over "
          "--setint_corpus), 'hdsearch' (nearest of 256 stored 16-dimension vectors), 'nbody' (a "
          "Barnes-Hut node's force on a body), 'classifier' (--classifier_rules 5-tuple rules by "
          "tuple space search), 'int' (INT telemetry collector: path latency, heavy-hitter "
          "flows), each also as NAME-traditional (the message copied to memory first, the reply "
          "built in memory), and 'othello' (game-tree search as map/reduce: with --othello_workers "
          "this host fans a MAP's children out to them and reduces their minimax values; without, "
          "it searches). docs/apps.md has the message layouts.");
ABSL_FLAG(std::string, app_mode, "register-file",
          "How messages reach the service: 'register-file' (the nanoPU's path: words read from the "
          "RX FIFO and written to the TX FIFO one at a time) or 'traditional' (a traditional NIC's: "
          "each request copied whole into memory, the reply built there and handed over whole; "
          "nanopu/memory_message.h). 'traditional' serves echo, increment, service, service-tester, "
          "loopback-throughput and the compute services (for those the same as NAME-traditional); "
          "compare the two with nanopu-loadgen --app_mode on the client too.");
ABSL_FLAG(std::string, boot_msg, "",
          "IP:CONTEXT (e.g. 10.0.0.2:7): once at start, send the nanoPU test applications' boot "
          "message there (docs/apps.md: 8 bytes of zero from context 0), so a tester knows the "
          "service is up. Empty: none.");
ABSL_FLAG(uint32_t, context, 1, "First context (L4 port) served.");
ABSL_FLAG(uint32_t, threads, 1,
          "Threads to run; thread i serves context + i, spread round-robin over the workers.");
ABSL_FLAG(uint32_t, priority, 0, "Priority of the service threads (0 is best).");
ABSL_FLAG(bool, stats, true, "Print the NIC and thread counters on exit.");

namespace {

using nanopu::apps::ServerApp;
using nanopu::apps::ServerSetup;

// --boot_msg: IP:CONTEXT, or nullopt (none); *bad when it does not parse.
std::optional<std::pair<uint32_t, uint16_t>> boot_target(bool* bad) {
  *bad = false;
  const std::string b = absl::GetFlag(FLAGS_boot_msg);
  if (b.empty()) return std::nullopt;
  const size_t colon = b.rfind(':');
  const std::optional<uint32_t> ip =
      colon == std::string::npos ? std::nullopt : nanopu::parse_ipv4(b.substr(0, colon));
  char* end = nullptr;
  const unsigned long ctx = colon == std::string::npos ? 0 : std::strtoul(b.c_str() + colon + 1, &end, 10);
  if (!ip || end == nullptr || *end != '\0' || end == b.c_str() + colon + 1 || ctx > 0xffff) {
    *bad = true;
    return std::nullopt;
  }
  return std::make_pair(*ip, static_cast<uint16_t>(ctx));
}

// The common flags into *s; one line naming the bad one, or "".
std::string read_setup(const nanopu::Config& config, ServerSetup* s) {
  s->config = &config;
  s->app = absl::GetFlag(FLAGS_app);
  const std::optional<nanopu::apps::MessagePath> path =
      nanopu::apps::parse_app_mode(absl::GetFlag(FLAGS_app_mode));
  if (!path) return "--app_mode='" + absl::GetFlag(FLAGS_app_mode) + "': use register-file or traditional";
  s->path = *path;
  const uint32_t first = absl::GetFlag(FLAGS_context);
  const uint32_t threads = absl::GetFlag(FLAGS_threads);
  const uint32_t priority = absl::GetFlag(FLAGS_priority);
  if (threads == 0 || first + threads > 0x10000 || priority > 0xff)
    return "--context + --threads must stay below 65536, --threads >= 1, --priority <= 255";
  s->first_context = static_cast<uint16_t>(first);
  s->threads = threads;
  s->priority = static_cast<uint8_t>(priority);
  s->workers = static_cast<uint32_t>(config.worker_count());
  return "";
}

// The service's threads, spread round-robin over the workers, then the boot
// message's (after them: they bind first). A service that serves the boot
// context itself announces from its own thread (apps/boot/bind_service.h).
absl::Status spawn_all(nanopu::Runtime& rt, ServerApp& app, const ServerSetup& s,
                       const std::optional<std::pair<uint32_t, uint16_t>>& boot) {
  bool serves_boot_context = false;
  for (uint32_t i = 0; i < s.threads; ++i)
    serves_boot_context |= app.context_of(s, i) == nanopu::apps::kBootContext;
  if (boot && serves_boot_context) nanopu::apps::announce_on_bind(boot->first, boot->second);
  for (uint32_t i = 0; i < s.threads; ++i)
    if (absl::StatusOr<nanopu::Thread*> t = rt.spawn(app.body(s, i), i % s.workers); !t.ok())
      return t.status();
  if (!boot || serves_boot_context) return absl::OkStatus();
  const uint32_t ip = boot->first;
  const uint16_t ctx = boot->second;
  auto announce = [ip, ctx](nanopu::Thread& t) {
    if (!nanopu::apps::send_boot_message(t, ip, ctx))
      std::fprintf(stderr, "nanopu-server: could not send the boot message (is context %u free?)\n",
                   nanopu::apps::kBootContext);
  };
  return rt.spawn(announce, 0).status();
}

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
  absl::ParseCommandLine(argc, argv);
  absl::StatusOr<nanopu::Config> config = nanopu::Config::from_flags();
  if (!config.ok()) return fail(std::string(config.status().message()), 2);
  ServerSetup setup;
  if (std::string bad = read_setup(*config, &setup); !bad.empty()) return fail(bad, 2);
  std::unique_ptr<ServerApp> app = nanopu::apps::make_server_app(setup.app);
  if (app == nullptr)
    return fail("--app='" + setup.app + "': use " + nanopu::apps::server_app_names(), 2);
  if (setup.path == nanopu::apps::MessagePath::kMemory && !app->has_traditional_path())
    return fail("--app_mode=traditional: --app=" + setup.app +
                    " has no traditional variant; it serves echo, increment, service, service-tester, "
                    "loopback-throughput and the compute services (dot and kv have the paper's "
                    "software-copy variants instead: --app=dot-naive, --app=kv-naive)",
                2);
  bool bad_boot = false;
  const auto boot = boot_target(&bad_boot);
  if (bad_boot)
    return fail("--boot_msg='" + absl::GetFlag(FLAGS_boot_msg) + "': expected IP:CONTEXT, e.g. 10.0.0.2:7", 2);
  if (std::string bad = app->configure(setup); !bad.empty()) return fail(bad, 2);
  if (const std::string what = app->what(); !what.empty())
    std::fprintf(stderr, "nanopu-server: %s: %s\n", setup.app.c_str(), what.c_str());
  if (absl::GetFlag(FLAGS_check_flags)) return 0;  // every flag checked; nothing started
  absl::StatusOr<std::unique_ptr<nanopu::Runtime>> rt = nanopu::Runtime::create(*config);
  if (!rt.ok()) return fail(std::string(rt.status().message()), 1);
  if (absl::Status s = spawn_all(**rt, *app, setup, boot); !s.ok()) return fail(std::string(s.message()), 1);
  nanopu::Runtime::install_signal_handlers();
  std::fprintf(stderr, "nanopu-server: %s on %s contexts %u..%u, %u worker(s)%s; Ctrl-C stops\n",
               setup.app.c_str(), nanopu::format_ipv4(config->ip).c_str(), app->context_of(setup, 0),
               app->context_of(setup, setup.threads - 1), setup.workers,
               config->shared_core() ? " sharing the NIC core" : "");
  if (absl::Status s = (*rt)->run(); !s.ok()) return fail(std::string(s.message()), 1);
  if (absl::GetFlag(FLAGS_stats)) {
    (*rt)->print_stats(stderr);
    app->print_stats(stderr);
  }
  return 0;
}
