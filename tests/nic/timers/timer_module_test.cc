#include "nic/timers/timer_module.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
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

// poll() skips its walk over the slots while nothing can be due: it must
// fire exactly what a walk at every scan fires, at the same times, with
// handlers that re-arm their own slot or another, cancels, and deadlines
// in the future, at the poll's time, in the past and 0 (a reference with
// the walk, below, side by side).
struct Reference {
  std::vector<uint64_t> deadline;
  uint64_t period, next_scan = 0;
  explicit Reference(uint32_t slots, uint64_t p) : deadline(slots, 0), period(p) {}
  template <typename F>
  void poll(uint64_t now, F&& fire) {
    bool armed = false;
    for (uint64_t d : deadline) armed |= d != 0;
    if (!armed || now < next_scan) return;
    next_scan = now + period;
    for (uint32_t s = 0; s < deadline.size(); ++s) {
      if (deadline[s] == 0 || deadline[s] > now) continue;
      deadline[s] = 0;
      fire(s, now);
    }
  }
};

// One draw in nine is due already (the past, down to 0), the rest later.
uint64_t draw_deadline(uint64_t now, uint64_t r) {
  const uint64_t d = r % 450;
  return d >= 50 ? now + d - 50 : now - std::min(now, d);
}

struct Both {
  std::mt19937_64 rng{7};
  Reference ref{64, 25};
  std::vector<std::pair<uint32_t, uint64_t>> ref_log, log;
  TimerModule* t = nullptr;
  // The handlers' draws, made once per firing and replayed for the
  // reference: re-arm the fired slot, and maybe another.
  std::vector<uint64_t> draws;
  size_t replayed = 0;
};

void fire_both(void* ctx, uint32_t slot, uint64_t now) {
  auto* b = static_cast<Both*>(ctx);
  b->log.emplace_back(slot, now);
  const uint64_t r = b->rng();
  b->draws.push_back(r);
  if (r % 3 == 0) b->t->schedule(slot, now + 1 + (r >> 4) % 200);
  if (r % 5 == 0) b->t->schedule(static_cast<uint32_t>((r >> 8) % 64), draw_deadline(now, r >> 16));
}

TEST(TimerModuleTest, SkippedScansFireExactlyWhatAWalkAtEveryScanFires) {
  Both b;
  TimerModule t(64, 25, fire_both, &b);
  b.t = &t;
  auto ref_schedule = [&](uint32_t s, uint64_t d) { b.ref.deadline[s] = d == 0 ? 1 : d; };
  auto ref_fire = [&](uint32_t slot, uint64_t now) {
    b.ref_log.emplace_back(slot, now);
    const uint64_t r = b.draws.at(b.replayed++);
    if (r % 3 == 0) ref_schedule(slot, now + 1 + (r >> 4) % 200);
    if (r % 5 == 0) ref_schedule(static_cast<uint32_t>((r >> 8) % 64), draw_deadline(now, r >> 16));
  };
  std::mt19937_64 ops(11);
  uint64_t now = 0;
  for (int step = 0; step < 200000; ++step) {
    const uint64_t r = ops();
    const uint32_t slot = static_cast<uint32_t>(r % 64);
    switch ((r >> 8) % 8) {
      case 0:
      case 1: {
        const uint64_t d = draw_deadline(now, r >> 16);
        t.schedule(slot, d);
        ref_schedule(slot, d);
        break;
      }
      case 2:
        t.cancel(slot);
        b.ref.deadline[slot] = 0;
        break;
      default:
        now += (r >> 16) % 20;
        t.poll(now);
        b.ref.poll(now, ref_fire);
    }
    ASSERT_EQ(b.log.size(), b.ref_log.size()) << "step " << step;
  }
  EXPECT_EQ(b.log, b.ref_log);
  EXPECT_GT(b.log.size(), 10000u);  // the comparison saw many firings
}

TEST(TimerModuleTest, ADeadlineOfZeroFiresAtTheFirstScan) {
  Fired f;
  TimerModule t(4, 10, record, &f);
  t.schedule(2, 0);
  t.poll(5);
  ASSERT_EQ(f.log.size(), 1u);
  EXPECT_EQ(f.log[0], std::make_pair(2u, uint64_t{5}));
}

// A handler arming a slot the walk has passed, due at once: the next scan
// fires it (not this one, as a walk does), though nothing else is armed.
struct ArmsSlotZero {
  std::vector<std::pair<uint32_t, uint64_t>> log;
  TimerModule* t = nullptr;
};
void arm_slot_zero(void* ctx, uint32_t slot, uint64_t now) {
  auto* a = static_cast<ArmsSlotZero*>(ctx);
  a->log.emplace_back(slot, now);
  if (slot == 3) a->t->schedule(0, now);
}

TEST(TimerModuleTest, ASlotArmedBehindTheWalkFiresAtTheNextScan) {
  ArmsSlotZero a;
  TimerModule t(4, 10, arm_slot_zero, &a);
  a.t = &t;
  t.schedule(3, 100);
  t.poll(100);
  ASSERT_EQ(a.log.size(), 1u);
  t.poll(105);  // within the period: no scan
  EXPECT_EQ(a.log.size(), 1u);
  t.poll(110);
  ASSERT_EQ(a.log.size(), 2u);
  EXPECT_EQ(a.log[1], std::make_pair(0u, uint64_t{110}));
}

}  // namespace
}  // namespace nanopu
