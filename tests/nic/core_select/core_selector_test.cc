#include "nic/core_select/core_selector.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace nanopu {
namespace {

TEST(CoreSelectorTest, JbsqPicksTheShortestCoreBelowN) {
  CoreSelector s(CoreSelectPolicy::kJbsq, 2);
  uint32_t out[4] = {1, 0, 1, 0};
  bool bound[4] = {true, true, true, true};
  EXPECT_EQ(s.select(out, bound, 4, 0), 1);
  out[1] = 2;
  EXPECT_EQ(s.select(out, bound, 4, 0), 3);
  out[3] = 2;
  EXPECT_EQ(s.select(out, bound, 4, 0), 0);
  out[0] = out[2] = 2;
  EXPECT_EQ(s.select(out, bound, 4, 0), CoreSelector::kHold);  // every core at n: wait
}

TEST(CoreSelectorTest, JbsqIgnoresUnboundCores) {
  CoreSelector s(CoreSelectPolicy::kJbsq, 2);
  uint32_t out[3] = {0, 1, 0};
  bool bound[3] = {false, true, false};
  EXPECT_EQ(s.select(out, bound, 3, 0), 1);
  bool none[3] = {false, false, false};
  EXPECT_EQ(s.select(out, none, 3, 0), CoreSelector::kHold);
}

// One bound core: nothing to balance, so the live NIC core lets a burst
// through (single_core_n); two bound cores keep JBSQ(n).
TEST(CoreSelectorTest, JbsqWithOneBoundCoreTakesUpToTheSingleCoreBound) {
  CoreSelector s(CoreSelectPolicy::kJbsq, 2, 32);
  uint32_t out[2] = {5, 0};
  bool one[2] = {true, false};
  EXPECT_EQ(s.select(out, one, 2, 0), 0);
  out[0] = 31;
  EXPECT_EQ(s.select(out, one, 2, 0), 0);
  out[0] = 32;
  EXPECT_EQ(s.select(out, one, 2, 0), CoreSelector::kHold);
  bool two[2] = {true, true};
  out[0] = 2;
  out[1] = 2;
  EXPECT_EQ(s.select(out, two, 2, 0), CoreSelector::kHold);  // JBSQ(2) across two cores
  CoreSelector model(CoreSelectPolicy::kJbsq, 2);  // the virtual-time model's: n everywhere
  out[0] = 2;
  EXPECT_EQ(model.select(out, one, 2, 0), CoreSelector::kHold);
}

// Simulated arrivals and completions: JBSQ never exceeds n per core, and
// never holds a message while some core has fewer than n.
TEST(CoreSelectorTest, JbsqInvariantsUnderRandomLoad) {
  for (uint32_t n : {1u, 2u, 3u}) {
    CoreSelector s(CoreSelectPolicy::kJbsq, n);
    std::mt19937 rng(n);
    uint32_t out[4] = {};
    bool bound[4] = {true, true, true, true};
    uint64_t held = 0;
    for (int step = 0; step < 100000; ++step) {
      if (rng() % 2) {  // arrival
        const int i = s.select(out, bound, 4, rng());
        if (i == CoreSelector::kHold) {
          for (uint32_t o : out) ASSERT_GE(o, n);
          ++held;
        } else {
          ++out[i];
          ASSERT_LE(out[i], n);
        }
      } else {  // a core finishes one message, then takes a held one
        const int c = static_cast<int>(rng() % 4);
        if (out[c] == 0) continue;
        --out[c];
        if (held > 0) {
          const int i = s.select(out, bound, 4, 0);
          ASSERT_EQ(i, c);  // the only core below n
          ++out[i];
          --held;
        }
      }
    }
  }
}

TEST(CoreSelectorTest, RssIsAFunctionOfTheFlowAndSpreadsFlows) {
  CoreSelector s(CoreSelectPolicy::kRss, 2);
  uint32_t out[4] = {9, 9, 9, 9};  // RSS has no bound
  bool bound[4] = {true, true, true, true};
  std::vector<int> hits(4, 0);
  for (uint32_t ip = 1; ip <= 400; ++ip) {
    const int a = s.select(out, bound, 4, flow_hash(ip, 7));
    EXPECT_EQ(a, s.select(out, bound, 4, flow_hash(ip, 7)));
    ++hits[a];
  }
  for (int h : hits) EXPECT_GT(h, 50);
}

TEST(CoreSelectorTest, StaticAlwaysTheFirstBoundCore) {
  CoreSelector s(CoreSelectPolicy::kStatic, 2);
  uint32_t out[3] = {5, 0, 0};
  bool bound[3] = {false, true, true};
  EXPECT_EQ(s.select(out, bound, 3, 123), 1);
}

}  // namespace
}  // namespace nanopu
