// nanopu-server's chain-replication replica: one replica of its own chain
// per thread (the chain is named by each WRITE; docs/apps.md).
#include <vector>

#include "apps/chain/chain_replica.h"
#include "apps/chain/chain_store.h"
#include "apps/server/server_app.h"

namespace nanopu::apps {
namespace {

class ChainApp final : public ServerApp {
 public:
  std::string configure(const ServerSetup& s) override {
    stores_.resize(s.threads);
    stats_.resize(s.threads);
    return "";
  }
  std::function<void(Thread&)> body(const ServerSetup& s, uint32_t i) override {
    const uint16_t ctx = context_of(s, i);
    const auto priority = s.priority_of(i);
    ChainStore* store = &stores_[i];
    ChainReplicaStats* st = &stats_[i];
    return [=](Thread& t) { (void)serve_chain(t, ctx, priority, store, st); };
  }
  void print_stats(FILE* out) const override {
    for (size_t i = 0; i < stats_.size(); ++i) {
      const ChainReplicaStats& s = stats_[i];
      print_counters(out, "chain" + std::to_string(i),
                     {{"writes", s.writes}, {"stale_writes", s.stale_writes}, {"forwarded", s.forwarded},
                      {"acks", s.acks}, {"reads", s.reads}, {"read_misses", s.read_misses},
                      {"bad", s.bad}, {"dropped", s.dropped}, {"keys", stores_[i].size()}});
    }
  }

 private:
  std::vector<ChainStore> stores_;
  std::vector<ChainReplicaStats> stats_;
};

}  // namespace

std::unique_ptr<ServerApp> make_chain_server_app(std::string_view name) {
  return name == "chain" ? std::make_unique<ChainApp>() : nullptr;
}

}  // namespace nanopu::apps
