// The bound formula of nanoPU (OSDI'21) §5.2.2 against the scheduler: the
// worst response a well-behaved thread sees in simulation (the runtime's
// HtsPolicy in virtual time, model/timing/response_bound.h) for 1 to 4
// priority-0 threads on a core. The paper's t_n + k·t0 + (k−1)·t_c holds
// when the context loaded is the first served; in general every message
// pays a switch (t_n + k·(t0 + t_c)), and the simulation reaches both.
#include "model/timing/response_bound.h"

#include <gtest/gtest.h>

namespace nanopu::model {
namespace {

const TimingModel kModel(TimingParams{});

TEST(ResponseBoundTest, SimulatedWorstCaseReachesButNeverPassesKSwitches) {
  for (unsigned k = 1; k <= 4; ++k) {
    WorstCaseSearch s;
    s.k = k;
    s.offsets = 200;
    const double worst = worst_case_response_ns(kModel, s);
    const double strict = kModel.strict_response_bound_ns(s.t0_ns, k);
    EXPECT_LE(worst, strict + 0.01) << "k " << k;
    // Tight: within the 1 ns per message the well-behaved ones leave (999
    // of t0 = 1000 ns), and the 1 ps the measured one arrives after the others.
    EXPECT_GE(worst, strict - k * (s.t0_ns - s.service_ns) - 0.01) << "k " << k;
  }
}

TEST(ResponseBoundTest, ThePapersFormulaMissesOneSwitchWhenTheLoadedContextIsNotFirst) {
  WorstCaseSearch s;
  s.k = 2;
  s.offsets = 200;
  const double worst = worst_case_response_ns(kModel, s);
  const double paper = kModel.response_bound_ns(s.t0_ns, 2);  // 2.15 us with the paper's numbers
  EXPECT_NEAR(paper, 2150, 10);
  EXPECT_GT(worst, paper);
  EXPECT_LE(worst, paper + kModel.context_switch_ns() + 0.01);
}

TEST(ResponseBoundTest, MisbehavingNeighboursAreCutOffAtT0) {
  for (DemotionMode d : {DemotionMode::kPermanent, DemotionMode::kUntilDone}) {
    for (unsigned k = 2; k <= 4; ++k) {
      WorstCaseSearch s;
      s.k = k;
      s.others_misbehave = true;  // 5 us each, 5 t0
      s.demotion = d;
      s.offsets = 100;
      EXPECT_LE(worst_case_response_ns(kModel, s), kModel.strict_response_bound_ns(s.t0_ns, k) + 0.01)
          << "k " << k << (d == DemotionMode::kUntilDone ? " until_done" : " permanent");
    }
  }
}

TEST(ResponseBoundTest, WithoutDemotionAMisbehavingNeighbourBreaksIt) {
  WorstCaseSearch s;
  s.k = 2;
  s.others_misbehave = true;
  s.bounded = false;
  s.offsets = 100;
  EXPECT_GT(worst_case_response_ns(kModel, s), kModel.strict_response_bound_ns(s.t0_ns, 2) + 1000);
}

}  // namespace
}  // namespace nanopu::model
