#include "nanopu/loadgen.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

namespace nanopu::loadgen {
namespace {

TEST(HistogramTest, SmallValuesAreExact) {
  Histogram h;
  for (uint64_t v = 0; v < 100; ++v) h.record(v);
  EXPECT_EQ(h.count(), 100u);
  EXPECT_EQ(h.min(), 0u);
  EXPECT_EQ(h.max(), 99u);
  EXPECT_EQ(h.quantile(0.5), 49u);
  EXPECT_EQ(h.quantile(0.99), 98u);
  EXPECT_EQ(h.quantile(1.0), 99u);
  EXPECT_DOUBLE_EQ(h.mean(), 49.5);
}

TEST(HistogramTest, BucketsTileTheRangeWithoutGaps) {
  for (size_t b = 0; b + 1 < 3000; ++b) {
    ASSERT_EQ(Histogram::bucket_high(b) + 1, Histogram::bucket_low(b + 1)) << b;
    ASSERT_EQ(Histogram::bucket_of(Histogram::bucket_low(b)), b);
    ASSERT_EQ(Histogram::bucket_of(Histogram::bucket_high(b)), b);
  }
  EXPECT_LT(Histogram::bucket_of(UINT64_MAX), 4000u);
}

TEST(HistogramTest, QuantilesWithinRelativeErrorOfExact) {
  std::mt19937_64 rng(7);
  std::lognormal_distribution<double> d(8.0, 1.5);
  std::vector<uint64_t> v;
  Histogram h;
  for (int i = 0; i < 100000; ++i) {
    v.push_back(static_cast<uint64_t>(d(rng)));
    h.record(v.back());
  }
  std::sort(v.begin(), v.end());
  for (double q : {0.5, 0.9, 0.99, 0.999}) {
    const double exact = static_cast<double>(v[static_cast<size_t>(q * v.size()) - 1]);
    const double got = static_cast<double>(h.quantile(q));
    EXPECT_NEAR(got, exact, exact * 0.02 + 1) << q;
  }
}

TEST(HistogramTest, MergeEqualsRecordingEverything) {
  Histogram a, b, all;
  for (uint64_t i = 0; i < 1000; ++i) {
    (i % 2 ? a : b).record(i * 37);
    all.record(i * 37);
  }
  a.merge(b);
  EXPECT_EQ(a.count(), all.count());
  for (double q : {0.1, 0.5, 0.99}) EXPECT_EQ(a.quantile(q), all.quantile(q));
  EXPECT_EQ(a.max(), all.max());
  EXPECT_EQ(a.min(), all.min());
}

TEST(HistogramTest, EmptyIsZero) {
  Histogram h;
  EXPECT_EQ(h.quantile(0.99), 0u);
  EXPECT_EQ(h.min(), 0u);
  EXPECT_EQ(h.mean(), 0.0);
}

}  // namespace
}  // namespace nanopu::loadgen
