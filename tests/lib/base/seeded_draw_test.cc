// A seed means one run with any standard library (nanopu/seeded_draw.h):
// its first draws pinned, so a change of library, compiler or of the
// generator itself cannot move them unnoticed (issue 70 item 4). A fault
// campaign's printed replay command, a simulation's trace hash and a
// workload's requests all rest on these numbers.
#include "nanopu/seeded_draw.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace nanopu {
namespace {

TEST(SeededDrawTest, ASeedsFirstDrawsArePinned) {
  SeededDraw d(7);
  EXPECT_EQ(d.next(), 10505089685518035142ull);
  EXPECT_EQ(d.next(), 5296779924938651633ull);
  EXPECT_EQ(d.next(), 5459529940390226802ull);
  EXPECT_EQ(d.below(1000), 687u);
  EXPECT_EQ(d.int_between(10, 20), 10u);
  EXPECT_DOUBLE_EQ(d.unit(), 0.24480437644484343);
  EXPECT_DOUBLE_EQ(d.between(2, 3), 2.1815947345208984);
  // libm's log1p: equal to within a few units in the last place.
  EXPECT_DOUBLE_EQ(d.exponential(2.0), 1.021406639428148);
  EXPECT_TRUE(d.chance(0.5));
  EXPECT_EQ(SeededDraw(0).next(), 6685036501382267578ull);
}

TEST(SeededDrawTest, TheSameSeedTheSameDrawsAnotherSeedOthers) {
  SeededDraw a(42), b(42), c(43);
  bool differ = false;
  for (int i = 0; i < 1000; ++i) {
    const uint64_t x = a.next();
    EXPECT_EQ(x, b.next());
    differ |= x != c.next();
  }
  EXPECT_TRUE(differ);
}

TEST(SeededDrawTest, DrawsStayInTheirRanges) {
  SeededDraw d(3);
  double mean = 0;
  for (int i = 0; i < 100000; ++i) {
    const uint64_t k = d.int_between(5, 9);
    ASSERT_GE(k, 5u);
    ASSERT_LE(k, 9u);
    const double u = d.unit();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    const double e = d.exponential(4.0);
    ASSERT_GE(e, 0.0);
    mean += e;
  }
  EXPECT_NEAR(mean / 100000, 0.25, 0.01) << "an exponential of rate 4 has mean 1/4";
  EXPECT_FALSE(d.chance(0.0));
  EXPECT_TRUE(d.chance(1.0));
  EXPECT_EQ(d.int_between(7, 7), 7u);
  SeededDraw e(3), f(3);
  EXPECT_EQ(e.int_between(0, UINT64_MAX), f.next()) << "the whole range: the raw draw, no modulo";
}

}  // namespace
}  // namespace nanopu
