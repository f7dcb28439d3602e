// nanopu-server's Othello game-tree search as map/reduce: with
// --othello_workers this host fans a MAP's children out to them and reduces
// their minimax values; without, it searches.
#include <vector>

#include "apps/server/service_flags.h"
#include "absl/flags/flag.h"
#include "apps/othello/othello_service.h"
#include "apps/peers/peer_list.h"
#include "apps/server/server_app.h"

ABSL_FLAG(uint32_t, othello_fanout_depth, 1,
          "othello: fan out MAPs whose cur_depth is below this (with --othello_workers).");

namespace nanopu::apps {
namespace {

class OthelloApp final : public ServerApp {
 public:
  std::string configure(const ServerSetup& s) override {
    if (const std::string w = absl::GetFlag(FLAGS_othello_workers); !w.empty()) {
      absl::StatusOr<std::vector<Peer>> peers = parse_peer_list(w);
      if (!peers.ok()) return "--othello_workers: " + std::string(peers.status().message());
      options_.workers = std::move(*peers);
    }
    options_.fanout_depth = absl::GetFlag(FLAGS_othello_fanout_depth);
    stats_.resize(s.threads);
    return "";
  }
  std::function<void(Thread&)> body(const ServerSetup& s, uint32_t i) override {
    const uint16_t ctx = context_of(s, i);
    const auto priority = s.priority_of(i);
    const uint32_t self_ip = s.config->ip;
    OthelloStats* st = &stats_[i];
    return [this, ctx, priority, self_ip, st](Thread& t) {
      (void)serve_othello(t, self_ip, ctx, priority, options_, st);
    };
  }
  void print_stats(FILE* out) const override {
    for (size_t i = 0; i < stats_.size(); ++i) {
      const OthelloStats& s = stats_[i];
      print_counters(out, "othello" + std::to_string(i),
                     {{"maps", s.maps}, {"searched", s.searched}, {"fanned_out", s.fanned_out},
                      {"reduces", s.reduces}, {"errors", s.errors}, {"stray", s.stray},
                      {"dropped", s.dropped}, {"nodes", s.nodes}, {"send_failures", s.send_failures}});
    }
  }

 private:
  OthelloOptions options_;
  std::vector<OthelloStats> stats_;
};

}  // namespace

std::unique_ptr<ServerApp> make_othello_server_app(std::string_view name) {
  return name == "othello" ? std::make_unique<OthelloApp>() : nullptr;
}

}  // namespace nanopu::apps
