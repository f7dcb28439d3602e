// nanopu-server's program (apps/server/server_program.h): the common flags,
// the --app's ServerApp, its threads spread over the workers, the boot
// message, and the counters at exit.
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/numbers.h"
#include "apps/boot/bind_service.h"
#include "apps/boot/boot_message.h"
#include "apps/server/server_program.h"
#include "apps/server/server_app.h"
#include "nanopu/address.h"
#include "nanopu/program_flags.h"

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
ABSL_FLAG(std::string, boot_msg, "",
          "IP:CONTEXT (e.g. 10.0.0.2:7): once at start, send the nanoPU test applications' boot "
          "message there (docs/apps.md: 8 bytes of zero from context 0), so a tester knows the "
          "service is up. Empty: none.");
ABSL_FLAG(uint32_t, threads, 1,
          "Threads to run; thread i serves context + i, spread round-robin over the workers.");
ABSL_FLAG(uint32_t, priority, 0, "Priority of the service threads (0 is best).");
ABSL_FLAG(std::vector<std::string>, thread_priorities, {},
          "Each thread's priority, thread i taking entry i (round-robin), e.g. 0,1: two threads of "
          "one core at priorities 0 and 1, as nanoPU OSDI'21 Figure 7 runs them. Empty: --priority.");
ABSL_FLAG(bool, shared_context, false,
          "Every thread binds --context, so the NIC's core selection (--core_select: jbsq, rss) "
          "spreads that context's messages over the worker cores, as the paper measured JBSQ "
          "(nanoPU OSDI'21 §5.2.3). Off: thread i serves --context + i.");

namespace nanopu::apps {
namespace {

// --boot_msg: IP:CONTEXT, or nullopt (none); *bad when it does not parse.
std::optional<std::pair<uint32_t, uint16_t>> boot_target(bool* bad) {
  *bad = false;
  const std::string b = absl::GetFlag(FLAGS_boot_msg);
  if (b.empty()) return std::nullopt;
  const size_t colon = b.rfind(':');
  const std::optional<uint32_t> ip =
      colon == std::string::npos ? std::nullopt : parse_ipv4(b.substr(0, colon));
  char* end = nullptr;
  const unsigned long ctx = colon == std::string::npos ? 0 : std::strtoul(b.c_str() + colon + 1, &end, 10);
  if (!ip || end == nullptr || *end != '\0' || end == b.c_str() + colon + 1 || ctx > 0xffff) {
    *bad = true;
    return std::nullopt;
  }
  return std::make_pair(*ip, static_cast<uint16_t>(ctx));
}

// The common flags into *s; one line naming the bad one, or "".
std::string read_setup(const Config& config, ServerSetup* s) {
  s->config = &config;
  s->app = absl::GetFlag(FLAGS_app);
  const std::optional<MessagePath> path =
      parse_app_mode(absl::GetFlag(FLAGS_app_mode));
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
  s->shared_context = absl::GetFlag(FLAGS_shared_context);
  for (const std::string& p : absl::GetFlag(FLAGS_thread_priorities)) {
    uint32_t v = 0;
    if (!absl::SimpleAtoi(p, &v) || v > 0xff) return "--thread_priorities: '" + p + "' is not a priority 0..255";
    s->thread_priorities.push_back(static_cast<uint8_t>(v));
  }
  return "";
}

// The service's threads, spread round-robin over the workers, then the boot
// message's (after them: they bind first). A service that serves the boot
// context itself announces from its own thread (apps/boot/bind_service.h).
absl::Status spawn_all(Runtime& rt, ServerApp& app, const ServerSetup& s,
                       const std::optional<std::pair<uint32_t, uint16_t>>& boot) {
  bool serves_boot_context = false;
  for (uint32_t i = 0; i < s.threads; ++i)
    serves_boot_context |= app.context_of(s, i) == kBootContext;
  if (boot && serves_boot_context) announce_on_bind(boot->first, boot->second);
  for (uint32_t i = 0; i < s.threads; ++i)
    if (absl::StatusOr<Thread*> t = rt.spawn(app.body(s, i), i % s.workers); !t.ok())
      return t.status();
  for (std::function<void(Thread&)>& body : app.extra_threads(s))
    if (absl::StatusOr<Thread*> t = rt.spawn(std::move(body), 0); !t.ok()) return t.status();
  if (!boot || serves_boot_context) return absl::OkStatus();
  const uint32_t ip = boot->first;
  const uint16_t ctx = boot->second;
  auto announce = [ip, ctx](Thread& t) {
    if (!send_boot_message(t, ip, ctx))
      std::fprintf(stderr, "nanopu-server: could not send the boot message (is context %u free?)\n",
                   kBootContext);
  };
  return rt.spawn(announce, 0).status();
}

class ServerProgram final : public Program {
 public:
  explicit ServerProgram(const Config& config) : config_(config) {}

  // The flags into this program: "" or the line naming the bad one.
  std::string configure() {
    if (std::string bad = read_setup(config_, &setup_); !bad.empty()) return bad;
    app_ = make_server_app(setup_.app);
    if (app_ == nullptr) return "--app='" + setup_.app + "': use " + server_app_names();
    if (setup_.path == MessagePath::kMemory && !app_->has_traditional_path())
      return "--app_mode=traditional: --app=" + setup_.app +
             " has no traditional variant; it serves echo, increment, service, service-tester, "
             "loopback-throughput and the compute services (dot and kv have the paper's "
             "software-copy variants instead: --app=dot-naive, --app=kv-naive)";
    bool bad_boot = false;
    boot_ = boot_target(&bad_boot);
    if (bad_boot) return "--boot_msg='" + absl::GetFlag(FLAGS_boot_msg) + "': expected IP:CONTEXT, e.g. 10.0.0.2:7";
    if (std::string bad = app_->configure(setup_); !bad.empty()) return bad;
    if (setup_.shared_context && setup_.threads > 1 && app_->context_of(setup_, 1) != setup_.first_context)
      return "--shared_context: --app=" + setup_.app + " chooses its threads' contexts itself (kv: --kv_jbsq)";
    if (const std::string what = app_->what(); !what.empty())
      std::fprintf(stderr, "nanopu-server: %s: %s\n", setup_.app.c_str(), what.c_str());
    stats_ = absl::GetFlag(FLAGS_stats);
    return "";
  }

  absl::Status spawn(Runtime& rt) override { return spawn_all(rt, *app_, setup_, boot_); }
  std::string banner() const override {
    return "nanopu-server: " + setup_.app + " on " + format_ipv4(config_.ip) + " contexts " +
           std::to_string(app_->context_of(setup_, 0)) + ".." +
           std::to_string(app_->context_of(setup_, setup_.threads - 1)) + ", " + std::to_string(setup_.workers) +
           " worker(s)" + (config_.shared_core() ? " sharing the NIC core" : "");
  }
  int report(Runtime& rt, FILE* /*out*/) override {
    if (stats_) {
      rt.print_stats(stderr);
      app_->print_stats(stderr);
    }
    // The server's CPUs are half of every client's tail (docs/running.md).
    if (const HostNoise n = rt.host_noise(); n.measured) std::fputs(describe_host_noise(n, {}).c_str(), stderr);
    return 0;
  }

 private:
  Config config_;  // setup_.config points here
  ServerSetup setup_;
  std::unique_ptr<ServerApp> app_;
  std::optional<std::pair<uint32_t, uint16_t>> boot_;
  bool stats_ = true;
};

}  // namespace

absl::StatusOr<std::unique_ptr<Program>> make_server_program(const Config& config) {
  auto p = std::make_unique<ServerProgram>(config);
  if (std::string bad = p->configure(); !bad.empty()) return absl::InvalidArgumentError(bad);
  return p;
}

}  // namespace nanopu::apps
