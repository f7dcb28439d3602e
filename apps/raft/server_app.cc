// nanopu-server's Raft server: one of --raft_cluster, with a 16-byte-key,
// 64-byte-value store, in memory only.
#include <unistd.h>

#include <algorithm>
#include <vector>

#include "nanopu/program_flags.h"
#include "apps/server/service_flags.h"
#include "absl/flags/flag.h"
#include "apps/peers/peer_list.h"
#include "apps/raft/raft_node.h"
#include "apps/raft/raft_service.h"
#include "apps/server/server_app.h"

ABSL_FLAG(double, raft_election_ms, 300,
          "raft: election timeout, drawn uniformly from [this, 2 x this] ms after the last word "
          "from a leader.");
ABSL_FLAG(double, raft_heartbeat_ms, 20, "raft: a leader's heartbeat period, ms.");
ABSL_FLAG(std::string, raft_state, "",
          "raft: a file for this server's term, vote and log (created if missing, read back at "
          "start): a server killed and started again with it keeps its promises and may rejoin. "
          "Written and synced (--raft_sync) before each reply that depends on it. Empty: in memory "
          "only, and a restarted server must not rejoin.");
ABSL_FLAG(bool, raft_sync, true,
          "raft: sync --raft_state (fdatasync) before relying on a record; false: a process crash "
          "keeps it, a power loss may not (nanopu-dst --dst_raft_sync=false shows what breaks).");

namespace nanopu::apps {
namespace {

class RaftApp final : public ServerApp {
 public:
  std::string configure(const ServerSetup& s) override {
    absl::StatusOr<std::vector<RaftServer>> c = parse_peer_list(absl::GetFlag(FLAGS_raft_cluster));
    if (!c.ok()) return "--raft_cluster: " + std::string(c.status().message());
    cluster_ = *c;
    const auto self = std::find_if(cluster_.begin(), cluster_.end(), [&](const RaftServer& r) {
      return r.ip == s.config->ip && r.context == s.first_context;
    });
    if (self == cluster_.end() || s.threads != 1)
      return "--raft_cluster must name this server (--ip, --context), and a raft server runs one thread";
    config_.self = static_cast<uint32_t>(self - cluster_.begin());
    config_.servers = static_cast<uint32_t>(cluster_.size());
    config_.election_min_ms = absl::GetFlag(FLAGS_raft_election_ms);
    config_.election_max_ms = 2 * config_.election_min_ms;
    config_.heartbeat_ms = absl::GetFlag(FLAGS_raft_heartbeat_ms);
    // --seed, else drawn anew by each process (a restarted server must not
    // time out in step with its first run).
    const uint64_t seed = absl::GetFlag(FLAGS_seed);
    config_.seed = seed != 0 ? seed : s.config->ip ^ static_cast<uint64_t>(getpid());
    if (!(config_.heartbeat_ms > 0) || config_.election_min_ms < 2 * config_.heartbeat_ms)
      return "--raft_heartbeat_ms must be > 0 and at most half of --raft_election_ms";
    if (const std::string path = absl::GetFlag(FLAGS_raft_state); !path.empty()) {
      absl::StatusOr<std::unique_ptr<RaftStorage>> st = RaftStorage::open(path, absl::GetFlag(FLAGS_raft_sync));
      if (!st.ok()) return std::string(st.status().message());
      storage_ = std::move(*st);
    }
    return "";
  }
  std::function<void(Thread&)> body(const ServerSetup& s, uint32_t) override {
    const auto priority = s.priority_of(0);
    return [this, priority](Thread& t) { (void)serve_raft(t, priority, cluster_, config_, &stats_, storage_.get()); };
  }
  void print_stats(FILE* out) const override {
    const RaftStats& s = stats_;
    print_counters(out, "raft",
                   {{"elections", s.elections}, {"terms_led", s.terms_led},
                    {"client_requests", s.client_requests}, {"redirects", s.redirects},
                    {"committed", s.committed}, {"puts_applied", s.puts_applied},
                    {"gets_applied", s.gets_applied}, {"resent_requests", s.resent_requests},
                    {"bad", s.bad}});
  }

 private:
  std::vector<RaftServer> cluster_;
  RaftNodeConfig config_;
  RaftStats stats_;
  std::unique_ptr<RaftStorage> storage_;  // --raft_state
};

}  // namespace

std::unique_ptr<ServerApp> make_raft_server_app(std::string_view name) {
  return name == "raft" ? std::make_unique<RaftApp>() : nullptr;
}

}  // namespace nanopu::apps
