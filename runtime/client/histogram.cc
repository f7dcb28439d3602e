#include "nanopu/loadgen.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace nanopu::loadgen {
namespace {
constexpr unsigned kSubBits = 6;                  // 64 sub-buckets per power of two
constexpr uint64_t kLinear = 2u << kSubBits;      // values below 128 are exact
constexpr size_t kBuckets = kLinear + (64 - kSubBits - 1) * (1u << kSubBits);
}  // namespace

Histogram::Histogram() : buckets_(kBuckets, 0) {}

size_t Histogram::bucket_of(uint64_t v) {
  if (v < kLinear) return static_cast<size_t>(v);
  const unsigned shift = static_cast<unsigned>(std::bit_width(v)) - 1 - kSubBits;  // ≥ 1
  const uint64_t sub = (v >> shift) - (1u << kSubBits);                             // 0..63
  return kLinear + (shift - 1) * (1u << kSubBits) + sub;
}

uint64_t Histogram::bucket_low(size_t b) {
  if (b < kLinear) return b;
  const size_t shift = (b - kLinear) / (1u << kSubBits) + 1;
  const uint64_t sub = (b - kLinear) % (1u << kSubBits);
  return ((1u << kSubBits) + sub) << shift;
}

uint64_t Histogram::bucket_high(size_t b) {
  if (b < kLinear) return b;
  const size_t shift = (b - kLinear) / (1u << kSubBits) + 1;
  return bucket_low(b) + ((uint64_t{1} << shift) - 1);
}

void Histogram::record(uint64_t v) {
  ++buckets_[bucket_of(v)];
  ++count_;
  min_ = std::min(min_, v);
  max_ = std::max(max_, v);
  sum_ += v;
}

void Histogram::merge(const Histogram& o) {
  for (size_t i = 0; i < buckets_.size(); ++i) buckets_[i] += o.buckets_[i];
  count_ += o.count_;
  min_ = std::min(min_, o.min_);
  max_ = std::max(max_, o.max_);
  sum_ += o.sum_;
}

void Histogram::reset() { *this = Histogram(); }

uint64_t Histogram::quantile(double q) const {
  if (count_ == 0) return 0;
  q = std::clamp(q, 0.0, 1.0);
  const uint64_t rank = std::max<uint64_t>(1, static_cast<uint64_t>(std::ceil(q * count_)));
  uint64_t seen = 0;
  for (size_t b = 0; b < buckets_.size(); ++b) {
    seen += buckets_[b];
    // Report the bucket's upper edge, but never above the true maximum.
    if (seen >= rank) return std::min(bucket_high(b), max_);
  }
  return max_;
}

}  // namespace nanopu::loadgen
