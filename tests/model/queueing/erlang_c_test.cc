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

// The load an SLO allows (what a server with --context_slo prints at start).
TEST(ErlangCTest, TheLoadAnSloAllowsMeetsItsPercentileExactly) {
  // M/M/1 with a 10x SLO: ρ · e^(−9(1−ρ)) = 0.01 at the answer.
  const double rho = max_load_within(1, 1000, 10000);
  EXPECT_NEAR(rho * std::exp(-9 * (1 - rho)), 0.01, 1e-6);
  EXPECT_GT(rho, 0.5);
  // More cores run nearer their capacity under the same SLO.
  EXPECT_GT(max_load_within(64, 1000, 10000) / 64, max_load_within(8, 1000, 10000) / 8);
  EXPECT_GT(max_load_within(64, 1000, 10000), 60);
  // A tighter SLO allows less; one not above the service none.
  EXPECT_LT(max_load_within(4, 1000, 3000), max_load_within(4, 1000, 10000));
  EXPECT_EQ(max_load_within(4, 1000, 1000), 0);
  EXPECT_EQ(max_load_within(0, 1000, 5000), 0);
}

}  // namespace
}  // namespace nanopu::model
