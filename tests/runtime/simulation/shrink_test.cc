// Shrinking a failing seed's schedule (issue 71 item 5): ddmin finds the
// fewest items that still fail, and a schedule printed as text replays
// exactly (runtime/simulation/shrink.h, nanopu/sim.h).
#include "runtime/simulation/shrink.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "nanopu/sim.h"

namespace nanopu::sim {
namespace {

bool has(const std::vector<size_t>& v, size_t x) { return std::find(v.begin(), v.end(), x) != v.end(); }

TEST(ShrinkTest, DdminFindsTheItemsTheFailureNeeds) {
  // Two of ten needed together.
  Shrunk s = ddmin(10, [](const std::vector<size_t>& k) { return has(k, 3) && has(k, 7); }, 100);
  EXPECT_EQ(s.kept, (std::vector<size_t>{3, 7}));
  EXPECT_FALSE(s.exhausted);
  EXPECT_LT(s.tests, 40);
  // One alone.
  s = ddmin(8, [](const std::vector<size_t>& k) { return has(k, 5); }, 100);
  EXPECT_EQ(s.kept, (std::vector<size_t>{5}));
  // None: a failure no fault causes takes one run.
  s = ddmin(8, [](const std::vector<size_t>&) { return true; }, 100);
  EXPECT_TRUE(s.kept.empty());
  EXPECT_EQ(s.tests, 1);
  // Either of two (the first found is kept): one item.
  s = ddmin(6, [](const std::vector<size_t>& k) { return has(k, 1) || has(k, 4); }, 100);
  EXPECT_EQ(s.kept.size(), 1u);
  // Out of runs: what it has still fails, and it says it stopped.
  s = ddmin(16, [](const std::vector<size_t>& k) { return has(k, 0) && has(k, 15) && has(k, 7); }, 3);
  EXPECT_TRUE(s.exhausted);
  EXPECT_TRUE(has(s.kept, 0) && has(s.kept, 15) && has(s.kept, 7));
  EXPECT_EQ(s.tests, 3);
}

TEST(ShrinkTest, ASchedulePrintedParsesBackExactly) {
  FaultSchedule f;
  f.host_flags = {{"prim", "--transport=homa"}, {"c1", "--faults=drop=0.012345,dup=0.000100,reorder=0.04,trim=0,seed=99"}};
  f.cuts = {{"back", 1.0 / 3, 2.718281828459045}};
  f.crashes = {{"prim", 12.345678901234567, 7.25}, {"c2", 30.5, 0}, {"back", 3.5, 1, true, true}, {"prim", 9, 2, false, true}};
  const std::string text = format_schedule(f);
  absl::StatusOr<FaultSchedule> g = parse_schedule(text);
  ASSERT_TRUE(g.ok()) << g.status() << "\n" << text;
  EXPECT_EQ(g->host_flags, f.host_flags);
  ASSERT_EQ(g->cuts.size(), 1u);
  EXPECT_EQ(g->cuts[0].from_ms, f.cuts[0].from_ms);  // bit for bit
  EXPECT_EQ(g->cuts[0].for_ms, f.cuts[0].for_ms);
  ASSERT_EQ(g->crashes.size(), 4u);
  EXPECT_EQ(g->crashes[0].at_ms, f.crashes[0].at_ms);
  EXPECT_EQ(g->crashes[1].down_ms, 0);
  EXPECT_FALSE(g->crashes[0].after_send);
  EXPECT_TRUE(g->crashes[2].after_send && g->crashes[2].power_loss);
  EXPECT_TRUE(!g->crashes[3].after_send && g->crashes[3].power_loss);
  EXPECT_NE(text.find("crash back@3.5+1/after-send/power-loss"), std::string::npos) << text;
  EXPECT_NE(text.find("crash prim@9+2/power-loss"), std::string::npos) << text;
  EXPECT_EQ(format_schedule(*g), text);
  EXPECT_EQ(format_schedule(FaultSchedule{}), "none");
  EXPECT_TRUE(parse_schedule("none").ok());
  for (const char* bad : {"cut back@1", "crash @1+2", "cut back@1+0", "crash prim@x+1", "prim transport=homa",
                          "explode prim@1+1",
                          "crash prim@1/after-send/after-send", "crash prim@1/sideways"}) {
    absl::StatusOr<FaultSchedule> b = parse_schedule(std::string("none; ") + bad);
    ASSERT_FALSE(b.ok()) << bad;
    EXPECT_NE(std::string(b.status().message()).find(bad), std::string::npos) << b.status();
  }
}

}  // namespace
}  // namespace nanopu::sim
