// Latency histogram: log-linear buckets (exact below 128, then 64 buckets per
// power of two, < 1.6% relative error), fixed memory, O(1) record. Written
// here because none of the project's libraries (Abseil, DPDK, Google
// Benchmark) has a latency histogram usable outside a benchmark.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace nanopu::apps {

class Histogram {
 public:
  Histogram();
  void record(uint64_t value);
  void merge(const Histogram& other);
  void reset();

  // Smallest recorded-bucket value v such that at least fraction q of the
  // samples are ≤ v (q in [0, 1]); 0 when empty.
  [[nodiscard]] uint64_t quantile(double q) const;
  [[nodiscard]] uint64_t count() const { return count_; }
  [[nodiscard]] uint64_t min() const { return count_ ? min_ : 0; }
  [[nodiscard]] uint64_t max() const { return max_; }
  [[nodiscard]] double mean() const { return count_ ? static_cast<double>(sum_) / count_ : 0.0; }

  [[nodiscard]] static size_t bucket_of(uint64_t value);
  [[nodiscard]] static uint64_t bucket_low(size_t bucket);
  [[nodiscard]] static uint64_t bucket_high(size_t bucket);  // inclusive

 private:
  std::vector<uint64_t> buckets_;
  uint64_t count_ = 0;
  uint64_t min_ = UINT64_MAX;
  uint64_t max_ = 0;
  unsigned __int128 sum_ = 0;
};

}  // namespace nanopu::apps
