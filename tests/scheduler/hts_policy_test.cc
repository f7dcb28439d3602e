// The HTS policy alone (no EAL, no fibers): times are plain numbers.
#include "scheduler/hts_policy.h"

#include <gtest/gtest.h>

#include <vector>

namespace nanopu::sched {
namespace {

constexpr uint64_t kT0 = 1000;
constexpr uint64_t kIdle = 500;
constexpr uint64_t kTick = 5000;

HtsPolicy hts(bool bounded = true, DemotionMode demotion = DemotionMode::kPermanent) {
  HtsParams p;
  p.mode = SchedMode::kHts;
  p.bounded = bounded;
  p.demotion = demotion;
  p.t0 = kT0;
  p.idle_timeout = kIdle;
  p.tis_period = kTick;
  return HtsPolicy(p);
}

std::vector<ThreadState> threads(std::initializer_list<uint8_t> priorities) {
  std::vector<ThreadState> ts;
  for (uint8_t p : priorities) {
    ThreadState t;
    t.present = true;
    t.priority = p;
    ts.push_back(t);
  }
  return ts;
}

void arrive(ThreadState& t, uint64_t ts) {
  if (!t.has_msg) t.head_ts = ts;
  t.has_msg = true;
}

TEST(HtsPolicyTest, PicksBestPriorityThenOldestHead) {
  HtsPolicy p = hts();
  auto ts = threads({1, 0, 0, 2});
  EXPECT_EQ(p.pick(ts.data(), ts.size(), -1, 0), HtsPolicy::kNone);
  arrive(ts[0], 10);
  arrive(ts[3], 5);
  EXPECT_EQ(p.pick(ts.data(), ts.size(), -1, 20), 0);  // priority 1 beats 2
  arrive(ts[2], 30);
  arrive(ts[1], 40);
  EXPECT_EQ(p.pick(ts.data(), ts.size(), -1, 50), 2);  // priority 0, older head than thread 1
}

TEST(HtsPolicyTest, ArrivalForStrictlyBetterThreadPreempts) {
  HtsPolicy p = hts();
  auto ts = threads({1, 0, 1});
  arrive(ts[0], 0);
  HtsPolicy::on_msg_start(ts[0], 0);
  EXPECT_FALSE(p.should_switch(ts.data(), ts.size(), 0, 100, false));
  arrive(ts[2], 100);  // equal priority: no preemption (FIFO among equals)
  EXPECT_FALSE(p.should_switch(ts.data(), ts.size(), 0, 150, false));
  arrive(ts[1], 200);  // strictly better
  EXPECT_TRUE(p.should_switch(ts.data(), ts.size(), 0, 250, false));
  EXPECT_EQ(p.pick(ts.data(), ts.size(), 0, 250), 1);
}

TEST(HtsPolicyTest, AtMsgDoneEqualPriorityWithOlderHeadGoesFirst) {
  HtsPolicy p = hts();
  auto ts = threads({1, 1});
  arrive(ts[0], 0);
  arrive(ts[1], 50);
  HtsPolicy::on_msg_start(ts[0], 0);
  EXPECT_FALSE(p.should_switch(ts.data(), ts.size(), 0, 60, false));
  // Thread 0 finishes; its next message arrived at 80, after thread 1's (50).
  p.on_msg_done(ts[0]);
  ts[0].head_ts = 80;
  EXPECT_TRUE(p.should_switch(ts.data(), ts.size(), 0, 90, true));
  // Had its next message been older, it would keep the core.
  ts[0].head_ts = 40;
  EXPECT_FALSE(p.should_switch(ts.data(), ts.size(), 0, 90, true));
}

TEST(HtsPolicyTest, PriorityZeroOverT0IsDemotedForGood) {
  HtsPolicy p = hts();
  auto ts = threads({0, 0});
  arrive(ts[0], 0);
  HtsPolicy::on_msg_start(ts[0], 0);
  arrive(ts[1], 100);
  EXPECT_FALSE(p.should_switch(ts.data(), ts.size(), 0, kT0, false));  // exactly t0: not over
  EXPECT_FALSE(ts[0].demoted);
  EXPECT_TRUE(p.should_switch(ts.data(), ts.size(), 0, kT0 + 1, false));
  EXPECT_TRUE(ts[0].demoted);
  EXPECT_EQ(HtsPolicy::effective_priority(ts[0]), 1);
  EXPECT_EQ(p.pick(ts.data(), ts.size(), 0, kT0 + 1), 1);
  p.on_msg_done(ts[0]);  // resets the message timer only (nanoPU tail-latency version §2.4)
  EXPECT_TRUE(ts[0].demoted);
  EXPECT_EQ(HtsPolicy::effective_priority(ts[0]), 1);
  EXPECT_FALSE(ts[0].in_msg);
  // Its next message: no new deadline, and a priority-0 arrival preempts it.
  arrive(ts[0], kT0 + 10);
  HtsPolicy::on_msg_start(ts[0], kT0 + 10);
  EXPECT_EQ(p.time_deadline(ts[0]), UINT64_MAX);
  arrive(ts[1], kT0 + 20);
  EXPECT_TRUE(p.should_switch(ts.data(), ts.size(), 0, kT0 + 20, false));
}

TEST(HtsPolicyTest, UntilDoneDemotionEndsAtMsgDoneAndTheNextMessageHasItsOwnDeadline) {
  HtsPolicy p = hts(true, DemotionMode::kUntilDone);
  auto ts = threads({0, 0});
  arrive(ts[0], 0);
  HtsPolicy::on_msg_start(ts[0], 0);
  arrive(ts[1], 100);
  EXPECT_TRUE(p.should_switch(ts.data(), ts.size(), 0, kT0 + 1, false));
  EXPECT_TRUE(ts[0].demoted);
  p.on_msg_done(ts[0]);
  EXPECT_FALSE(ts[0].demoted);
  EXPECT_EQ(HtsPolicy::effective_priority(ts[0]), 0);
  // Its next message is priority 0 again, with a t0 deadline of its own, and
  // a priority-0 arrival no longer preempts it.
  arrive(ts[0], kT0 + 10);
  HtsPolicy::on_msg_start(ts[0], kT0 + 10);
  EXPECT_EQ(p.time_deadline(ts[0]), kT0 + 10 + kT0);
  ts[1].head_ts = kT0 + 20;
  EXPECT_FALSE(p.should_switch(ts.data(), ts.size(), 0, kT0 + 20, false));
}

TEST(HtsPolicyTest, DemotionAloneDoesNotSwitchWhenNobodyBetterWaits) {
  HtsPolicy p = hts();
  auto ts = threads({0, 1});
  arrive(ts[0], 0);
  HtsPolicy::on_msg_start(ts[0], 0);
  arrive(ts[1], 10);  // priority 1, equal to the demoted thread: FIFO, no preemption
  EXPECT_FALSE(p.should_switch(ts.data(), ts.size(), 0, 5 * kT0, false));
  EXPECT_TRUE(ts[0].demoted);
}

TEST(HtsPolicyTest, UnboundedModeNeverDemotes) {
  HtsPolicy p = hts(/*bounded=*/false);
  auto ts = threads({0, 0});
  arrive(ts[0], 0);
  HtsPolicy::on_msg_start(ts[0], 0);
  arrive(ts[1], 1);
  EXPECT_FALSE(p.should_switch(ts.data(), ts.size(), 0, 100 * kT0, false));
  EXPECT_FALSE(ts[0].demoted);
  EXPECT_EQ(p.time_deadline(ts[0]), UINT64_MAX);
}

TEST(HtsPolicyTest, DeadlineIsMessageStartPlusT0ForPriorityZeroOnly) {
  HtsPolicy p = hts();
  auto ts = threads({0, 1});
  HtsPolicy::on_msg_start(ts[0], 700);
  HtsPolicy::on_msg_start(ts[1], 700);
  EXPECT_EQ(p.time_deadline(ts[0]), 700 + kT0);
  EXPECT_EQ(p.time_deadline(ts[1]), UINT64_MAX);
}

TEST(HtsPolicyTest, IdleThreadGivesWayToAnyActiveThread) {
  HtsPolicy p = hts();
  auto ts = threads({0, 3});
  ts[0].runnable = true;
  ts[0].idle_since = 10;
  EXPECT_FALSE(p.should_switch(ts.data(), ts.size(), 0, 20, false));
  arrive(ts[1], 30);  // even a worse-priority thread with work beats an idle one
  EXPECT_TRUE(p.should_switch(ts.data(), ts.size(), 0, 40, false));
}

TEST(HtsPolicyTest, AllIdleRotatesRoundRobinAfterTheIdleTimeout) {
  HtsPolicy p = hts();
  auto ts = threads({0, 1, 2});
  for (auto& t : ts) t.runnable = true;
  ts[0].idle_since = 100;
  EXPECT_FALSE(p.should_switch(ts.data(), ts.size(), 0, 100 + kIdle, false));
  EXPECT_TRUE(p.should_switch(ts.data(), ts.size(), 0, 101 + kIdle, false));
  // A free core keeps the last thread until its idle timeout, then rotates.
  EXPECT_EQ(p.pick(ts.data(), ts.size(), 0, 100 + kIdle), 0);
  EXPECT_EQ(p.pick(ts.data(), ts.size(), 0, 101 + kIdle), 1);
  ts[1].idle_since = 1;
  EXPECT_EQ(p.pick(ts.data(), ts.size(), 1, 101 + kIdle), 2);
  ts[2].idle_since = 1;
  EXPECT_EQ(p.pick(ts.data(), ts.size(), 2, 101 + kIdle), 0);
}

TEST(HtsPolicyTest, ParkedThreadsAreNotRotatedTo) {
  HtsPolicy p = hts();
  auto ts = threads({0, 1});
  ts[0].runnable = true;
  ts[0].idle_since = 1;
  ts[1].runnable = false;  // parked in wait() with nothing to read
  EXPECT_FALSE(p.should_switch(ts.data(), ts.size(), 0, 10 * kIdle, false));
}

TEST(HtsPolicyTest, LowerPriorityWithWorkIsNotStarvedWhenHigherOnesAreIdle) {
  HtsPolicy p = hts();
  auto ts = threads({0, 0, 2});
  ts[0].runnable = ts[1].runnable = true;  // high-priority threads polling, no messages
  ts[0].idle_since = ts[1].idle_since = 1;
  arrive(ts[2], 5);
  EXPECT_EQ(p.pick(ts.data(), ts.size(), 0, 10), 2);
  EXPECT_TRUE(p.should_switch(ts.data(), ts.size(), 0, 10, false));
}

TEST(HtsPolicyTest, TisTicksOnlyOnThePeriod) {
  HtsParams prm;
  prm.mode = SchedMode::kTis;
  prm.tis_period = kTick;
  prm.t0 = kT0;
  HtsPolicy p(prm);
  uint64_t tick = 0;
  EXPECT_FALSE(p.tis_tick_due(0, kTick - 1, &tick));
  EXPECT_TRUE(p.tis_tick_due(0, kTick, &tick));
  EXPECT_EQ(tick, kTick);
  EXPECT_TRUE(p.tis_tick_due(0, 3 * kTick + 7, &tick));
  EXPECT_EQ(tick, 3 * kTick);  // ticks stay on the grid
  // TIS never demotes, however long a priority-0 thread runs.
  auto ts = threads({0, 0});
  arrive(ts[0], 0);
  HtsPolicy::on_msg_start(ts[0], 0);
  arrive(ts[1], 1);
  EXPECT_FALSE(p.should_switch(ts.data(), ts.size(), 0, 100 * kT0, false));
  EXPECT_FALSE(ts[0].demoted);
}

}  // namespace
}  // namespace nanopu::sched
