// INT reports: a flow drawn from int_flows flows (a few heavy: flow i with
// weight 1/(i+1)), a path of 1..8 hops with random switch ids, latencies
// and queue depths; the reference recomputes the path's latency, its
// bottleneck and deepest queue. The flow's report count can only be checked
// for consistency (at least one, the heavy-hitter flag agreeing with it):
// the collector also counts what other clients, and earlier runs, sent.
// tests/apps/compute checks the counts exactly.
#include <cmath>

#include "absl/strings/str_format.h"
#include "apps/inttel/int_collector.h"
#include "apps/inttel/int_record.h"
#include "tools/loadgen/workloads/workload.h"

namespace nanopu::apps {
namespace {

class IntWorkload : public Workload {
 public:
  IntWorkload(uint32_t flows, uint64_t heavy) : flows_(flows ? flows : 1), heavy_(heavy) {
    double sum = 0;
    for (uint32_t i = 0; i < flows_; ++i) cdf_.push_back(sum += 1.0 / (i + 1));
    for (double& x : cdf_) x /= sum;
  }

  void make(SeededDraw& rng, uint64_t sent_time, std::vector<uint64_t>* req, Expected* e) override {
    const auto flow = static_cast<uint64_t>(
        std::min<size_t>(std::lower_bound(cdf_.begin(), cdf_.end(), rng.unit()) - cdf_.begin(), flows_ - 1));
    const uint64_t flow0 = 0x0a000000ull << 32 | (0x0a010000u + flow);
    const uint64_t flow1 = uint64_t{40000 + flow % 20000} << 48 | uint64_t{443} << 32 | 6;
    const auto hops = static_cast<uint32_t>(1 + rng() % 8);
    req->assign({0, sent_time, flow0, flow1, int_shim_word(hops), int_md_word(0)});
    uint64_t path = 0, worst = 0, bottleneck = 0, deepest = 0;
    for (uint32_t i = 0; i < hops; ++i) {
      IntHop h{static_cast<uint32_t>(rng() % 1000), static_cast<uint16_t>(rng() % 64),
               static_cast<uint16_t>(rng() % 64), static_cast<uint32_t>(rng() % 5000),
               static_cast<uint8_t>(rng() % 8), static_cast<uint32_t>(rng() % (1u << 24))};
      req->push_back(int_hop_word0(h));
      req->push_back(int_hop_word1(h));
      path += h.hop_latency;
      if (i == 0 || h.hop_latency > worst) worst = h.hop_latency, bottleneck = h.switch_id;
      if (h.queue_occupancy > deepest) deepest = h.queue_occupancy;
    }
    e->reply.assign({0, sent_time, path, bottleneck, deepest, 0, 0});  // reports and heavy: check()
  }
  bool check(std::span<const uint64_t> r, const Expected& e) override {
    if (r.size() != kIntReplyWords || !std::equal(e.reply.begin(), e.reply.begin() + 5, r.begin())) return false;
    const uint64_t reports = r[5];
    return reports >= 1 && r[6] == (reports >= heavy_ ? 1u : 0u);
  }
  double declared_cycles(std::span<const uint64_t> req) const override {
    const double hops = req.size() > 6 ? static_cast<double>(req.size() - 6) / 2 : 0;
    return kIntCyclesPerReport + kIntCyclesPerHop * hops;
  }
  std::string describe() const override {
    return absl::StrFormat("1-8 hop reports of %u flows (weights 1/rank)", flows_);
  }

 private:
  uint32_t flows_;
  uint64_t heavy_;
  std::vector<double> cdf_;
};

}  // namespace

std::unique_ptr<Workload> make_int_workload(const WorkloadOptions& o) {
  return std::make_unique<IntWorkload>(o.int_flows, o.int_heavy_threshold);
}

}  // namespace nanopu::apps
