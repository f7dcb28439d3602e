// One --app of nanopu-server: its flags (defined beside it, in its own
// folder: apps/<service>/server_app.cc), what its threads share, each
// thread's body, and its counters at exit. main.cc picks one by name
// (make_server_app) and knows nothing of any service's options, as
// nanopu-loadgen's ServiceCli does for the clients.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>
#include <utility>
#include <vector>

#include "apps/paths/message_path.h"
#include "nanopu/config.h"
#include "nanopu/thread.h"

namespace nanopu::apps {

// The common flags, checked: what every service is started with.
struct ServerSetup {
  const Config* config = nullptr;
  std::string app;             // --app, as given
  uint16_t first_context = 1;  // --context
  uint32_t threads = 1;        // --threads
  uint8_t priority = 0;        // --priority
  uint32_t workers = 1;        // worker cores
  MessagePath path = MessagePath::kRegisters;  // --app_mode
  bool shared_context = false;  // --shared_context: every thread binds first_context
  std::vector<uint8_t> thread_priorities;  // --thread_priorities (empty: --priority for all)
  // Thread i's priority: --thread_priorities' entry i (round-robin), else --priority.
  [[nodiscard]] uint8_t priority_of(uint32_t i) const {
    return thread_priorities.empty() ? priority : thread_priorities[i % thread_priorities.size()];
  }
};

class ServerApp {
 public:
  virtual ~ServerApp() = default;
  // Reads and checks this service's flags and builds what its threads
  // share; returns one line naming the bad flag, or "". Nothing runs yet.
  [[nodiscard]] virtual std::string configure(const ServerSetup& s) = 0;
  // Whether --app_mode=traditional means something for it.
  [[nodiscard]] virtual bool has_traditional_path() const { return false; }
  // The context thread i serves (the banner's range): first + i by default,
  // first for every thread with --shared_context.
  [[nodiscard]] virtual uint16_t context_of(const ServerSetup& s, uint32_t i) const {
    return static_cast<uint16_t>(s.shared_context ? s.first_context : s.first_context + i);
  }
  // Thread i's body (after configure).
  [[nodiscard]] virtual std::function<void(Thread&)> body(const ServerSetup& s, uint32_t i) = 0;
  // Threads besides the --threads ones (a chain replica's control thread),
  // each on thread 0's worker core.
  [[nodiscard]] virtual std::vector<std::function<void(Thread&)>> extra_threads(const ServerSetup& s) {
    (void)s;
    return {};
  }
  // A line for the start-up banner, or "".
  [[nodiscard]] virtual std::string what() const { return ""; }
  // "  name value" lines, after the runtime's own counters.
  virtual void print_stats(FILE* out) const { (void)out; }
};

// By --app name; nullptr for an unknown one.
[[nodiscard]] std::unique_ptr<ServerApp> make_server_app(std::string_view name);
// The names make_server_app() knows, for the error line.
[[nodiscard]] std::string server_app_names();

// Each service's own (apps/<service>/server_app.cc); nullptr if `name` is
// not one of its names.
[[nodiscard]] std::unique_ptr<ServerApp> make_loopback_server_app(std::string_view name);
[[nodiscard]] std::unique_ptr<ServerApp> make_kv_server_app(std::string_view name);
[[nodiscard]] std::unique_ptr<ServerApp> make_chain_server_app(std::string_view name);
[[nodiscard]] std::unique_ptr<ServerApp> make_rdma_server_app(std::string_view name);
[[nodiscard]] std::unique_ptr<ServerApp> make_raft_server_app(std::string_view name);
[[nodiscard]] std::unique_ptr<ServerApp> make_dot_server_app(std::string_view name);
[[nodiscard]] std::unique_ptr<ServerApp> make_compute_server_app(std::string_view name);
[[nodiscard]] std::unique_ptr<ServerApp> make_othello_server_app(std::string_view name);

// "  <prefix><i>.<name> <value>" for each counter, the runtime's format.
inline void print_counters(FILE* out, const std::string& prefix,
                           const std::vector<std::pair<const char*, uint64_t>>& counters) {
  for (const auto& [name, value] : counters)
    std::fprintf(out, "  %s.%s %llu\n", prefix.c_str(), name, static_cast<unsigned long long>(value));
}

}  // namespace nanopu::apps
