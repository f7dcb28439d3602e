#include "runtime/host/incarnation.h"

#include <gtest/gtest.h>

#include <set>

namespace nanopu {
namespace {

TEST(IncarnationTest, NeverZeroAndFollowsTheClock) {
  EXPECT_EQ(incarnation_after(0, 0), 1);
  EXPECT_EQ(incarnation_after(65534, 0), 65535);
  EXPECT_EQ(incarnation_after(65535, 0), 1);  // wraps past 0
  EXPECT_EQ(incarnation_after(1000, 1), 1001);
}

TEST(IncarnationTest, TwoRunsWithinAMillisecondStillDiffer) {
  EXPECT_EQ(incarnation_after(1000, 1001), 1002);
  EXPECT_EQ(incarnation_after(65534, 65535), 1);  // skips 0
  EXPECT_EQ(incarnation_after(999, 1001), 1002);   // the clock stepped back
}

TEST(IncarnationTest, RestartsAMillisecondOrMoreApartWithin65SecondsNeverCollide) {
  // A process restarted after d ms (1 <= d < 65535) against its predecessor.
  for (uint64_t start : {0ull, 12345ull, 65534ull, 1700000000123ull}) {
    const uint16_t first = incarnation_after(start, 0);
    for (uint64_t d = 1; d < 65535; d += 7) EXPECT_NE(incarnation_after(start + d, 0), first) << d;
  }
}

TEST(IncarnationTest, OneProcessHandsOutDistinctValues) {
  std::set<uint16_t> seen;
  for (int i = 0; i < 1000; ++i) EXPECT_TRUE(seen.insert(next_incarnation()).second);
}

}  // namespace
}  // namespace nanopu
