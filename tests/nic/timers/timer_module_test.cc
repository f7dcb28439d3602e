#include "nic/timers/timer_module.h"

#include <gtest/gtest.h>

#include <vector>

namespace nanopu {
namespace {

struct Fired {
  std::vector<std::pair<uint32_t, uint64_t>> log;
  TimerModule* t = nullptr;
  bool rearm = false;
};

void record(void* ctx, uint32_t slot, uint64_t now) {
  auto* f = static_cast<Fired*>(ctx);
  f->log.emplace_back(slot, now);
  if (f->rearm) f->t->schedule(slot, now + 100);
}

TEST(TimerModuleTest, FiresOncePastItsDeadline) {
  Fired f;
  TimerModule t(8, 10, record, &f);
  t.schedule(3, 100);
  t.poll(99);
  EXPECT_TRUE(f.log.empty());
  t.poll(110);
  ASSERT_EQ(f.log.size(), 1u);
  EXPECT_EQ(f.log[0], std::make_pair(3u, uint64_t{110}));
  EXPECT_FALSE(t.pending(3));
  t.poll(500);
  EXPECT_EQ(f.log.size(), 1u);
}

TEST(TimerModuleTest, CancelAndRescheduleAndPeriod) {
  Fired f;
  TimerModule t(8, 50, record, &f);
  t.schedule(1, 100);
  t.schedule(2, 100);
  t.cancel(1);
  t.schedule(2, 300);  // rescheduled later
  EXPECT_EQ(t.armed(), 1u);
  t.poll(200);          // scans: nothing due
  t.poll(320);          // due, scanned (period passed)
  ASSERT_EQ(f.log.size(), 1u);
  EXPECT_EQ(f.log[0].first, 2u);
  t.schedule(4, 330);
  t.poll(340);          // within the period after the last scan: not yet
  EXPECT_EQ(f.log.size(), 1u);
  t.poll(371);
  EXPECT_EQ(f.log.size(), 2u);
}

TEST(TimerModuleTest, HandlerMayRearm) {
  Fired f;
  TimerModule t(2, 1, record, &f);
  f.t = &t;
  f.rearm = true;
  t.schedule(0, 10);
  for (uint64_t now = 0; now <= 1000; now += 5) t.poll(now);
  EXPECT_GE(f.log.size(), 9u);
  EXPECT_TRUE(t.pending(0));
}

TEST(TimerModuleTest, NextDeadlineIsTheEarliestArmed) {
  Fired f;
  TimerModule t(4, 10, record, &f);
  EXPECT_EQ(t.next_deadline(), UINT64_MAX);
  t.schedule(1, 500);
  t.schedule(3, 200);
  EXPECT_EQ(t.next_deadline(), 200u);
  t.cancel(3);
  EXPECT_EQ(t.next_deadline(), 500u);
  t.cancel(1);
  EXPECT_EQ(t.next_deadline(), UINT64_MAX);
}

}  // namespace
}  // namespace nanopu
