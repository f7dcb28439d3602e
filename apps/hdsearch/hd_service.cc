#include "apps/hdsearch/hd_service.h"

#include <bit>
#include <cmath>

#include "apps/compute/status_words.h"
#include "nanopu/seeded_draw.h"

namespace nanopu::apps {

const std::vector<double>& hd_vectors() {
  static const std::vector<double> v = [] {
    SeededDraw rng(kHdSeed);
    std::vector<double> a(size_t{kHdVectors} * kHdDims);
    for (double& x : a) x = static_cast<double>(rng() >> 11) * 0x1p-53;
    return a;
  }();
  return v;
}

HdMatch hd_nearest(const double* q) {
  const std::vector<double>& v = hd_vectors();
  HdMatch best{0, INFINITY};
  for (uint32_t i = 0; i < kHdVectors; ++i) {
    double d2 = 0;
    for (uint32_t k = 0; k < kHdDims; ++k) {
      const double d = v[size_t{i} * kHdDims + k] - q[k];
      d2 += d * d;
    }
    if (d2 < best.distance2) best = {i, d2};
  }
  return best;
}

Outcome HdSearchService::answer(std::span<const uint64_t> r, std::vector<uint64_t>* reply) {
  if (r.size() < 3) return error_reply(r, kErrBadLength, reply);
  if (r[2] != kHdDims) return error_reply(r, kErrBadCount, reply);
  if (r.size() != 3 + kHdDims) return error_reply(r, kErrBadLength, reply);
  double q[kHdDims];
  for (uint32_t k = 0; k < kHdDims; ++k) {
    q[k] = std::bit_cast<double>(r[3 + k]);
    if (!std::isfinite(q[k])) return error_reply(r, kErrBadValue, reply);
  }
  const HdMatch m = hd_nearest(q);
  work_cycles_ = kHdCyclesPerCoordinate * kHdDims * kHdVectors;
  reply->assign({r[0], r[1], m.id, std::bit_cast<uint64_t>(m.distance2)});
  return Outcome::kAnswered;
}

}  // namespace nanopu::apps
