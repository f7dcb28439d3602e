// nanopu-server's chain replication: --app=chain, a replica (a static chain
// from --chain, or one a master runs: --chain_master), and
// --app=chain-master, the master of --chain (docs/apps.md).
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "apps/chain/chain_master.h"
#include "apps/chain/chain_replica.h"
#include "apps/peers/peer_list.h"
#include "apps/server/server_app.h"
#include "apps/server/service_flags.h"
#include "nanopu/address.h"

ABSL_FLAG(std::string, chain_master, "",
          "chain: a replica's master, IP:CONTEXT (--app=chain-master there): the master gives it its "
          "place in the chain, replaces it when it fails and brings it back up to date when it returns. "
          "Empty: a static chain (--chain), no replacement.");
ABSL_FLAG(uint32_t, chain_ping_us, 2000, "chain-master: a round of pings to every replica this often (us).");
ABSL_FLAG(uint32_t, chain_dead_pings, 3,
          "chain-master: pings missed in a row before a replica is suspected; it is replaced once its "
          "read lease (--chain_lease_us) has run out.");
ABSL_FLAG(uint32_t, chain_join_rounds, 50,
          "chain-master: a replica joining the chain that does not hold its predecessor's snapshot "
          "after this many rounds of pings is taken out again (it may join later).");
ABSL_FLAG(uint32_t, chain_lease_us, 4000,
          "chain: a tail answers READs until this long after the master's last ping (a replica and its "
          "master: give both the same), so a tail the master replaced never answers one.");

namespace nanopu::apps {
namespace {

absl::StatusOr<std::vector<uint64_t>> members_of(const std::string& text) {
  absl::StatusOr<std::vector<Peer>> peers = parse_peer_list(text);
  if (!peers.ok()) return peers.status();
  if (peers->size() > kChainMaxMembers)
    return absl::InvalidArgumentError("at most " + std::to_string(kChainMaxMembers) + " replicas");
  std::vector<uint64_t> out;
  for (const Peer& p : *peers) out.push_back(chain_node(p.ip, p.context));
  return out;
}

class ChainApp final : public ServerApp {
 public:
  std::string configure(const ServerSetup& s) override {
    if (s.threads != 1) return "--app=chain: one replica a host (--threads=1); it runs two threads, data and control";
    state_.self = chain_node(s.config->ip, s.first_context);
    const std::string master = absl::GetFlag(FLAGS_chain_master);
    if (!master.empty()) {
      absl::StatusOr<std::vector<uint64_t>> m = members_of(master);
      if (!m.ok() || m->size() != 1) return "--chain_master: one IP:CONTEXT";
      state_.master = m->front();
      state_.lease_ns = uint64_t{absl::GetFlag(FLAGS_chain_lease_us)} * 1000;
      return "";  // the master sends the chain
    }
    absl::StatusOr<std::vector<uint64_t>> members = members_of(absl::GetFlag(FLAGS_chain));
    if (!members.ok()) return "--chain: " + std::string(members.status().message()) + " (or give --chain_master)";
    state_.config.epoch = 1;
    state_.config.members = *members;
    if (state_.config.index_of(state_.self) < 0)
      return "--chain does not list this replica (" + format_ipv4(s.config->ip) + ":" + std::to_string(s.first_context) + ")";
    return "";
  }
  std::function<void(Thread&)> body(const ServerSetup& s, uint32_t) override {
    const uint16_t ctx = s.first_context;
    const uint8_t priority = s.priority_of(0);
    return [this, ctx, priority](Thread& t) { (void)serve_chain(t, ctx, priority, &state_); };
  }
  std::string what() const override {
    return state_.master == 0 ? "a replica of a static chain"
                              : "a replica, its place from the master " + format_ipv4(chain_node_ip(state_.master));
  }
  void print_stats(FILE* out) const override {
    const ChainReplicaStats& s = state_.stats;
    print_counters(out, "chain",
                   {{"writes", s.writes}, {"stale_writes", s.stale_writes}, {"forwarded", s.forwarded},
                    {"acks", s.acks}, {"reads", s.reads}, {"read_misses", s.read_misses}, {"refused", s.refused},
                    {"not_predecessor", s.not_predecessor}, {"bad", s.bad}, {"dropped", s.dropped},
                    {"configs", s.configs}, {"synced_out", s.synced_out}, {"synced_in", s.synced_in},
                    {"keys", state_.store.size()}, {"epoch", state_.config.epoch}});
  }
  // With a master, the control thread, beside the data thread on its core.
  std::vector<std::function<void(Thread&)>> extra_threads(const ServerSetup& s) override {
    if (state_.master == 0) return {};
    const uint16_t ctx = s.first_context;
    return {[this, ctx](Thread& t) {
      if (!serve_chain_control(t, ctx, &state_))
        std::fprintf(stderr, "chain: control context %u is taken\n", chain_control_context(ctx));
    }};
  }

 private:
  ChainReplicaState state_;
};

class ChainMasterApp final : public ServerApp {
 public:
  std::string configure(const ServerSetup& s) override {
    if (s.threads != 1) return "--app=chain-master: one thread (--threads=1)";
    absl::StatusOr<std::vector<uint64_t>> members = members_of(absl::GetFlag(FLAGS_chain));
    if (!members.ok()) return "--chain: " + std::string(members.status().message());
    o_.members = *members;
    o_.ping_ns = uint64_t{absl::GetFlag(FLAGS_chain_ping_us)} * 1000;
    o_.dead_pings = absl::GetFlag(FLAGS_chain_dead_pings);
    o_.lease_ns = uint64_t{absl::GetFlag(FLAGS_chain_lease_us)} * 1000;
    o_.join_rounds = absl::GetFlag(FLAGS_chain_join_rounds);
    if (o_.ping_ns == 0 || o_.dead_pings == 0 || o_.join_rounds == 0)
      return "--chain_ping_us, --chain_dead_pings and --chain_join_rounds must be > 0";
    return "";
  }
  std::function<void(Thread&)> body(const ServerSetup& s, uint32_t) override {
    const uint16_t ctx = s.first_context;
    return [this, ctx](Thread& t) {
      if (!serve_chain_master(t, ctx, o_, &stats_)) std::fprintf(stderr, "chain-master: context %u is taken\n", ctx);
    };
  }
  std::string what() const override { return "the master of a chain of " + std::to_string(o_.members.size()); }
  void print_stats(FILE* out) const override {
    print_counters(out, "chain_master",
                   {{"rounds", stats_.rounds}, {"removals", stats_.removals}, {"restarts", stats_.restarts},
                    {"joins_started", stats_.joins_started}, {"joins_done", stats_.joins_done},
                    {"joins_abandoned", stats_.joins_abandoned}, {"configs_sent", stats_.configs_sent},
                    {"epoch", stats_.epoch}});
  }

 private:
  ChainMasterOptions o_;
  ChainMasterStats stats_;
};

}  // namespace

std::unique_ptr<ServerApp> make_chain_server_app(std::string_view name) {
  if (name == "chain") return std::make_unique<ChainApp>();
  if (name == "chain-master") return std::make_unique<ChainMasterApp>();
  return nullptr;
}

}  // namespace nanopu::apps
