// The scheduler live, through the real EAL: preemption on arrival, t0
// demotion (for good), idle rotation, no starvation, TIS ticks, JBSQ
// bounds and asynchronous preemption. Each scenario runs in single-lcore mode
// (NIC loop and worker share the test's lcore) and with a dedicated NIC lcore.
#include "scheduler/worker.h"

#include <gtest/gtest.h>
#include <rte_cycles.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <string>
#include <vector>

#include "nanopu/runtime.h"
#include "tests/support/eal_env.h"
#include "tests/support/test_hosts.h"

namespace nanopu {
namespace {

constexpr uint32_t kIp = 0x0a000001;

enum class Mode { kShared, kDedicated };

std::string mode_name(const ::testing::TestParamInfo<Mode>& i) {
  return i.param == Mode::kShared ? "SingleLcore" : "DedicatedNicLcore";
}

class WorkerTest : public ::testing::TestWithParam<Mode> {
 protected:
  // A host whose port loops back to itself, so threads message each other.
  std::unique_ptr<Runtime> host(const std::function<void(Config&)>& tweak = nullptr,
                                uint32_t workers = 1) {
    const uint16_t port = testing::make_loop_port();
    Config c = GetParam() == Mode::kShared ? testing::host_config(port, kIp)
                                           : testing::dedicated_config(port, kIp, workers);
    if (GetParam() == Mode::kShared) c.shared_workers = workers;
    if (tweak) tweak(c);
    auto rt = Runtime::create(c);
    EXPECT_TRUE(rt.ok()) << rt.status();
    return rt.ok() ? std::move(*rt) : nullptr;
  }
  // Runs until every thread has returned.
  void run(Runtime& rt) {
    if (GetParam() == Mode::kShared) {
      ASSERT_TRUE(testing::poll_until({&rt}, [&] { return rt.all_threads_finished(); },
                                      std::chrono::seconds(30)));
    } else {
      ASSERT_TRUE(rt.run().ok());
      ASSERT_TRUE(rt.all_threads_finished());
    }
  }
};

void send(Thread& t, uint16_t context, uint64_t word = 0) {
  ASSERT_EQ(t.write(AppHeader{kIp, context, 8}.word()), ApiError::kOk);
  ASSERT_EQ(t.write(word), ApiError::kOk);
}

// Computes for `us` microseconds, passing through safe points; stops early
// once *until turns true (set by another thread of this core).
void compute(Thread& t, double us, const bool* until = nullptr) {
  const uint64_t end = rte_rdtsc() + static_cast<uint64_t>(us * 1e-6 * rte_get_tsc_hz());
  while (rte_rdtsc() < end && (until == nullptr || !*until)) t.preempt_point();
}

// L (priority 1) starts a long message, then a message for H (priority 0)
// arrives. After run(), preempted() says whether H ran before L finished.
struct Scenario {
  bool l_done = false;
  bool h_ran = false;
  bool h_saw_l_done = true;
  [[nodiscard]] bool preempted() const { return h_ran && !h_saw_l_done; }

  // until_h_ran: L's computation ends as soon as H has run (H can only run
  // before L's msg_done by preempting it), so a busy machine that delays
  // H's message cannot make the test miss the preemption.
  void spawn(Runtime& rt, double l_compute_us, bool until_h_ran = false) {
    EXPECT_TRUE(rt.spawn([this](Thread& t) {
      ASSERT_TRUE(t.bind(11, 0).ok());
      ASSERT_TRUE(t.wait());
      h_ran = true;
      h_saw_l_done = l_done;
      t.msg_done();
    }).ok());
    EXPECT_TRUE(rt.spawn([this, l_compute_us, until_h_ran](Thread& t) {
      ASSERT_TRUE(t.bind(10, 1).ok());
      send(t, 10);
      ASSERT_TRUE(t.wait());
      (void)t.read();  // our message starts
      send(t, 11);     // a message for the better thread
      compute(t, l_compute_us, until_h_ran ? &h_ran : nullptr);
      l_done = true;
      t.msg_done();
    }).ok());
  }
};

TEST_P(WorkerTest, ArrivalForABetterThreadPreemptsAtASafePoint) {
  auto rt = host();
  Scenario sc;
  sc.spawn(*rt, 10e6, /*until_h_ran=*/true);  // up to 10 s: H's message must get through
  run(*rt);
  EXPECT_TRUE(sc.preempted());
  EXPECT_GE(rt->core_counters(0).preemptions, 1u);
}

TEST_P(WorkerTest, TisDoesNotPreemptBetweenTicks) {
  auto rt = host([](Config& c) {
    c.scheduler = SchedMode::kTis;
    // 250 ms ticks: L starts on a tick (H held the core, polling, until
    // then) and its 2 ms message ends long before the next one, unless the
    // process loses its CPU for ~250 ms in between (50 ms ticks and a 5 ms
    // message left a 45 ms margin).
    c.tis_period_ns = 250e6;
  });
  Scenario sc;
  sc.spawn(*rt, 2000);
  run(*rt);
  EXPECT_TRUE(sc.h_ran);
  EXPECT_FALSE(sc.preempted());
  EXPECT_EQ(rt->core_counters(0).preemptions, 0u);
}

TEST_P(WorkerTest, TisPreemptsOnATick) {
  auto rt = host([](Config& c) {
    c.scheduler = SchedMode::kTis;
    c.tis_period_ns = 200e3;  // 200 us ticks
  });
  Scenario sc;
  sc.spawn(*rt, 10e6, /*until_h_ran=*/true);  // a tick must come; up to 10 s on a busy machine
  run(*rt);
  EXPECT_TRUE(sc.preempted());
  EXPECT_EQ(rt->core_counters(0).preemptions, 1u);
}

TEST_P(WorkerTest, PriorityZeroPastT0IsDemotedForGood) {
  auto rt = host([](Config& c) { c.t0_ns = 2e6; });  // t0 = 2 ms: wide margins on a noisy VM
  std::vector<std::string> log;
  bool b_ran[2] = {false, false};
  ASSERT_TRUE(rt->spawn([&](Thread& t) {  // B, priority 0
    ASSERT_TRUE(t.bind(21, 0).ok());
    for (int i = 0; i < 2; ++i) {
      ASSERT_TRUE(t.wait());
      log.push_back("B" + std::to_string(i));
      b_ran[i] = true;
      t.msg_done();
    }
  }).ok());
  ASSERT_TRUE(rt->spawn([&](Thread& t) {  // A, priority 0
    ASSERT_TRUE(t.bind(20, 0).ok());
    send(t, 20);
    ASSERT_TRUE(t.wait());
    (void)t.read();
    send(t, 21);
    // Past t0 A is demoted and B runs first. A computes until B has run (at
    // most 10 s): a fixed span could pass wholly while the OS runs another
    // process, and A would never reach a safe point in it.
    compute(t, 10e6, &b_ran[0]);
    log.push_back("A0");
    t.msg_done();      // A stays at priority 1 (nanoPU (OSDI'21) §2.4, nanoPU tail-latency version §4)
    send(t, 20);
    ASSERT_TRUE(t.wait());
    (void)t.read();
    send(t, 21);
    compute(t, 10e6, &b_ran[1]);  // B (priority 0) preempts A as soon as its message lands
    log.push_back("A1");
    t.msg_done();
  }).ok());
  run(*rt);
  EXPECT_EQ(log, (std::vector<std::string>{"B0", "A0", "B1", "A1"}));
  EXPECT_EQ(rt->core_counters(0).demotions, 1u);
}

TEST_P(WorkerTest, UnboundedModeLetsALongPriorityZeroMessageFinish) {
  auto rt = host([](Config& c) {
    c.t0_ns = 100e3;
    c.bounded_processing = false;
  });
  std::vector<std::string> log;
  ASSERT_TRUE(rt->spawn([&](Thread& t) {
    ASSERT_TRUE(t.bind(21, 0).ok());
    ASSERT_TRUE(t.wait());
    log.push_back("B");
    t.msg_done();
  }).ok());
  ASSERT_TRUE(rt->spawn([&](Thread& t) {
    ASSERT_TRUE(t.bind(20, 0).ok());
    send(t, 20);
    ASSERT_TRUE(t.wait());
    (void)t.read();
    send(t, 21);
    compute(t, 2000);
    log.push_back("A");
    t.msg_done();
  }).ok());
  run(*rt);
  EXPECT_EQ(log, (std::vector<std::string>{"A", "B"}));
  EXPECT_EQ(rt->core_counters(0).demotions, 0u);
}

// Each thread idles until every thread has come round kRounds times. Without
// rotation the first thread would spin alone until the deadline and the
// others would not reach kRounds. The loop ends on progress, not on a wall
// clock window: a 10 ms window failed in CI when the process lost its CPU
// for longer than that between one thread's first and second turn.
TEST_P(WorkerTest, IdleThreadsRotateSoAllMakeProgress) {
  auto rt = host();
  constexpr uint64_t kRounds = 50;
  uint64_t counts[3] = {};
  const auto everyone_came_round = [&] {
    return std::all_of(std::begin(counts), std::end(counts), [](uint64_t c) { return c >= kRounds; });
  };
  const uint64_t deadline = rte_rdtsc() + rte_get_tsc_hz() * 10;
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(rt->spawn([&, i](Thread& t) {
      ASSERT_TRUE(t.bind(static_cast<uint16_t>(40 + i), static_cast<uint8_t>(i)).ok());
      while (!everyone_came_round() && rte_rdtsc() < deadline) {
        ++counts[i];
        t.idle();
      }
    }).ok());
  }
  run(*rt);
  for (uint64_t c : counts) EXPECT_GE(c, kRounds);
  EXPECT_GT(rt->core_counters(0).idle_rotations + rt->core_counters(0).switches, 3u);
}

TEST_P(WorkerTest, LowerPriorityWithWorkRunsWhileHigherOnesIdle) {
  auto rt = host();
  int processed = 0;
  std::atomic<bool> done{false};
  ASSERT_TRUE(rt->spawn([&](Thread& t) {  // priority 0, no messages, keeps polling
    ASSERT_TRUE(t.bind(50, 0).ok());
    const uint64_t end = rte_rdtsc() + rte_get_tsc_hz() * 5;
    while (!done && rte_rdtsc() < end) t.idle();
  }).ok());
  ASSERT_TRUE(rt->spawn([&](Thread& t) {  // priority 2 with 20 messages to handle
    ASSERT_TRUE(t.bind(51, 2).ok());
    for (int i = 0; i < 20; ++i) send(t, 51, static_cast<uint64_t>(i));
    while (processed < 20 && t.wait()) {
      (void)t.read();
      if (t.read() == static_cast<uint64_t>(processed)) ++processed;
      t.msg_done();
    }
    done = true;
  }).ok());
  run(*rt);
  EXPECT_EQ(processed, 20);
}

TEST_P(WorkerTest, JbsqKeepsAtMostNPerCoreAndUsesEveryCore) {
  auto rt = host([](Config& c) { c.jbsq_n = 2; }, /*workers=*/2);
  constexpr int kMessages = 40;
  uint32_t max_local[2] = {0, 0};
  int handled[2] = {0, 0};
  int replies = 0;
  // The client ends the servers with a flag, not with a "stop" message per
  // core: JBSQ picks the core for each message by the credits the NIC has
  // seen, and a credit still on its way back (a slow machine, TSan) can send
  // both stops to one core and leave the other server waiting for ever.
  std::atomic<bool> stop{false};
  for (uint32_t w = 0; w < 2; ++w) {
    ASSERT_TRUE(rt->spawn([&, w](Thread& t) {
      ASSERT_TRUE(t.bind(30, 0).ok());  // both cores serve context 30
      while (!stop.load(std::memory_order_relaxed)) {
        if (!t.wait_for(std::chrono::milliseconds(1))) continue;
        const AppHeader h = AppHeader::from_word(t.read());
        max_local[w] = std::max(max_local[w], 1 + t.queued());  // this one + waiting
        const uint64_t v = t.read();
        compute(t, 50);
        ++handled[w];
        send(t, h.context, v);
        t.msg_done();
      }
    }, w).ok());
  }
  ASSERT_TRUE(rt->spawn([&](Thread& t) {  // the client, on core 0
    ASSERT_TRUE(t.bind(31, 3).ok());
    for (int i = 0; i < kMessages; ++i) send(t, 30, static_cast<uint64_t>(i));
    while (replies < kMessages && t.wait()) {
      (void)t.read();
      (void)t.read();
      ++replies;
      t.msg_done();
    }
    stop.store(true, std::memory_order_relaxed);
  }, 0).ok());
  run(*rt);
  EXPECT_EQ(replies, kMessages);
  EXPECT_EQ(handled[0] + handled[1], kMessages);
  EXPECT_GT(handled[0], 0);
  EXPECT_GT(handled[1], 0);
  EXPECT_LE(max_local[0], 2u);
  EXPECT_LE(max_local[1], 2u);
  EXPECT_GT(rt->nic_counters().rx_msgs_queued, 0u);  // some waited for a credit
  EXPECT_EQ(rt->nic_counters().rx_dropped(), 0u);
}

TEST_P(WorkerTest, ThreadsOnOneCoreCannotShareAContextButAcrossCoresCan) {
  auto rt = host(nullptr, /*workers=*/2);
  absl::Status same_core, other_core;
  std::atomic<int> tried{0};
  ASSERT_TRUE(rt->spawn([&](Thread& t) {
    ASSERT_TRUE(t.bind(60).ok());
    while (tried.load() < 2) t.idle();  // hold the context while the others try
  }, 0).ok());
  ASSERT_TRUE(rt->spawn([&](Thread& t) { same_core = t.bind(60); ++tried; }, 0).ok());
  ASSERT_TRUE(rt->spawn([&](Thread& t) { other_core = t.bind(60); ++tried; }, 1).ok());
  run(*rt);
  EXPECT_EQ(same_core.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_TRUE(other_core.ok()) << other_core;
}

INSTANTIATE_TEST_SUITE_P(Modes, WorkerTest, ::testing::Values(Mode::kShared, Mode::kDedicated),
                         mode_name);

// Asynchronous preemption needs the NIC on another core to send the signal.
TEST(AsyncPreemptTest, AThreadThatNeverCallsTheApiIsPreempted) {
  Config c = testing::dedicated_config(testing::make_loop_port(), kIp, 1);
  c.async_preempt_us = 50;
  auto rt = Runtime::create(c);
  ASSERT_TRUE(rt.ok()) << rt.status();
  std::atomic<bool> h_ran{false};
  bool l_saw_h = false;
  ASSERT_TRUE((*rt)->spawn([&](Thread& t) {
    ASSERT_TRUE(t.bind(11, 0).ok());
    ASSERT_TRUE(t.wait());
    h_ran.store(true, std::memory_order_relaxed);
    t.msg_done();
  }).ok());
  ASSERT_TRUE((*rt)->spawn([&](Thread& t) {
    ASSERT_TRUE(t.bind(10, 1).ok());
    t.allow_async_preemption(true);
    send(t, 10);
    ASSERT_TRUE(t.wait());
    (void)t.read();
    send(t, 11);
    // Pure computation: no API call, no safe point, for up to 3 s.
    const uint64_t end = rte_rdtsc() + 3 * rte_get_tsc_hz();
    while (!h_ran.load(std::memory_order_relaxed) && rte_rdtsc() < end) {
    }
    l_saw_h = h_ran.load(std::memory_order_relaxed);
    t.msg_done();
  }).ok());
  ASSERT_TRUE((*rt)->run().ok());
  EXPECT_TRUE(l_saw_h) << "the spinning thread was never preempted";
  EXPECT_GE((*rt)->nic_counters().async_preempt_signals, 1u);
  EXPECT_GE((*rt)->core_counters(0).async_preemptions, 1u);
}

}  // namespace
}  // namespace nanopu
