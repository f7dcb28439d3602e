// nanopu-server's one-sided RDMA service: read, write, compare-and-swap,
// fetch-and-add and indirect read on one registered region all threads share.
#include <vector>

#include "absl/flags/flag.h"
#include "apps/rdma/rdma_region.h"
#include "apps/rdma/rdma_service.h"
#include "apps/server/server_app.h"

ABSL_FLAG(uint32_t, rdma_region_kb, 1024, "rdma: the registered region, KiB (zeroed at start).");

namespace nanopu::apps {
namespace {

class RdmaApp final : public ServerApp {
 public:
  std::string configure(const ServerSetup& s) override {
    const uint32_t kb = absl::GetFlag(FLAGS_rdma_region_kb);
    if (kb == 0 || kb > (16u << 20)) return "--rdma_region_kb must be 1..16777216";
    region_ = std::make_unique<RdmaRegion>(size_t{kb} << 10);
    stats_.resize(s.threads);
    return "";
  }
  std::function<void(Thread&)> body(const ServerSetup& s, uint32_t i) override {
    const uint16_t ctx = context_of(s, i);
    const auto priority = s.priority_of(i);
    RdmaRegion* region = region_.get();
    RdmaServiceStats* st = &stats_[i];
    return [=](Thread& t) { (void)serve_rdma(t, ctx, priority, region, st); };
  }
  void print_stats(FILE* out) const override {
    for (size_t i = 0; i < stats_.size(); ++i) {
      const RdmaServiceStats& s = stats_[i];
      print_counters(out, "rdma" + std::to_string(i),
                     {{"reads", s.reads}, {"writes", s.writes}, {"cas", s.cas}, {"cas_swapped", s.cas_swapped},
                      {"faa", s.faa}, {"indirect_reads", s.indirect_reads}, {"scans", s.scans}, {"maxes", s.maxes}, {"out_of_range", s.out_of_range},
                      {"bad_requests", s.bad_requests}, {"dropped", s.dropped}});
    }
  }

 private:
  std::unique_ptr<RdmaRegion> region_;
  std::vector<RdmaServiceStats> stats_;
};

}  // namespace

std::unique_ptr<ServerApp> make_rdma_server_app(std::string_view name) {
  return name == "rdma" ? std::make_unique<RdmaApp>() : nullptr;
}

}  // namespace nanopu::apps
