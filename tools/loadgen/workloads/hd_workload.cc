// HD-search queries: kHdDims coordinates uniform in [0, 1); the reference
// answer is a plain scan in long double, so a wrong index or a lost
// coordinate in the service shows, while both agree on the nearest id.
#include <bit>

#include "absl/strings/str_format.h"
#include "apps/hdsearch/hd_service.h"
#include "tools/loadgen/workloads/workload.h"

namespace nanopu::apps {
namespace {

class HdWorkload : public Workload {
 public:
  void make(SeededDraw& rng, uint64_t sent_time, std::vector<uint64_t>* req, Expected* e) override {
    req->assign({0, sent_time, kHdDims});
    double q[kHdDims];
    for (double& x : q) {
      x = static_cast<double>(rng() >> 11) * 0x1p-53;
      req->push_back(std::bit_cast<uint64_t>(x));
    }
    const std::vector<double>& v = hd_vectors();
    uint64_t best = 0;
    long double best_d2 = -1;
    for (uint32_t i = 0; i < kHdVectors; ++i) {
      long double d2 = 0;
      for (uint32_t k = 0; k < kHdDims; ++k) {
        const long double d = static_cast<long double>(v[size_t{i} * kHdDims + k]) - q[k];
        d2 += d * d;
      }
      if (best_d2 < 0 || d2 < best_d2) best = i, best_d2 = d2;
    }
    e->reply.assign({0, sent_time, best, std::bit_cast<uint64_t>(static_cast<double>(best_d2))});
  }
  // The id exactly; the distance to within rounding (the service sums in double).
  bool check(std::span<const uint64_t> r, const Expected& e) override {
    if (r.size() != 4 || r[0] != e.reply[0] || r[1] != e.reply[1] || r[2] != e.reply[2]) return false;
    const double got = std::bit_cast<double>(r[3]), want = std::bit_cast<double>(e.reply[3]);
    return got >= want * (1 - 1e-12) && got <= want * (1 + 1e-12);
  }
  double declared_cycles(std::span<const uint64_t>) const override {
    return kHdCyclesPerCoordinate * kHdDims * kHdVectors;
  }
  std::string describe() const override {
    return absl::StrFormat("%u-dimension queries against %u vectors", kHdDims, kHdVectors);
  }
};

}  // namespace

std::unique_ptr<Workload> make_hd_workload() { return std::make_unique<HdWorkload>(); }

}  // namespace nanopu::apps
