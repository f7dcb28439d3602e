// Erlang's C formula (model/queueing/erlang_c.h) against NEBULA's §IV-C
// example and the closed forms of small cases.
#include "model/queueing/erlang_c.h"

#include <gtest/gtest.h>

#include <cmath>

namespace nanopu::model {
namespace {

TEST(ErlangCTest, NebulasSixtyFourCoresAtSixtyThreeHaveFiftyFourWaiting) {
  // §IV-C: "for a 64-core CPU at an extreme load of A = 63, E[Nq] = 54".
  EXPECT_NEAR(mean_queued(64, 63), 54, 1);
  // Its buffer: 10 × E[Nq] entries of 1 KB, "a 540KB buffer".
  EXPECT_NEAR(10 * mean_queued(64, 63) * 1e3 / 1e3, 540, 10);
}

TEST(ErlangCTest, OneServerIsMM1AndTheEdgesAreNamed) {
  // M/M/1: P(wait) = ρ, E[Nq] = ρ² / (1 − ρ).
  EXPECT_NEAR(erlang_c(1, 0.5), 0.5, 1e-12);
  EXPECT_NEAR(mean_queued(1, 0.5), 0.5, 1e-12);
  // M/M/2 at A = 1: C = 1/3.
  EXPECT_NEAR(erlang_c(2, 1), 1.0 / 3, 1e-12);
  EXPECT_EQ(erlang_c(4, 0), 0);
  EXPECT_EQ(erlang_c(4, 4), 1);
  EXPECT_TRUE(std::isinf(mean_queued(4, 4)));
  // More servers at the same utilization wait less.
  EXPECT_LT(erlang_c(64, 0.9 * 64), erlang_c(8, 0.9 * 8));
}

}  // namespace
}  // namespace nanopu::model
