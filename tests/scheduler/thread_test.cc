// nanopu::Thread API semantics and misuse, on a host whose port loops back
// to itself (real EAL, net_ring).
#include "nanopu/thread.h"

#include <gtest/gtest.h>

#include <chrono>

#include "nanopu/lnic.h"
#include "nanopu/runtime.h"
#include "tests/support/eal_env.h"
#include "tests/support/test_hosts.h"

namespace nanopu {
namespace {

constexpr uint32_t kIp = 0x0a000001;

// Sends a message to the thread itself and waits for it.
void send_self(Thread& t, uint16_t len, uint64_t first_word) {
  ASSERT_EQ(t.write(AppHeader{kIp, t.context(), len}.word()), ApiError::kOk);
  for (uint32_t i = 0; i < (len + 7u) / 8; ++i) ASSERT_EQ(t.write(first_word + i), ApiError::kOk);
  ASSERT_TRUE(t.wait());
}

TEST(ThreadTest, ReadsHeaderThenWordsAndSeesItsOwnAddress) {
  auto host = testing::make_loop_host(kIp, 1024);
  testing::run_thread(*host, [](Thread& t) {
    ASSERT_TRUE(t.bind(3).ok());
    send_self(t, 24, 100);
    const AppHeader h = AppHeader::from_word(t.read());
    EXPECT_EQ(h, (AppHeader{kIp, 3, 24}));
    EXPECT_EQ(t.rx_words_left(), 3u);
    EXPECT_EQ(t.read(), 100u);
    EXPECT_EQ(t.read(), 101u);
    EXPECT_EQ(t.read(), 102u);
    EXPECT_EQ(t.rx_words_left(), 0u);
    t.msg_done();
    EXPECT_FALSE(t.msgs_ready());
    EXPECT_EQ(t.counters().rx_msgs, 1u);
    EXPECT_EQ(t.counters().tx_msgs, 1u);
  });
}

TEST(ThreadTest, ReadingAnEmptyFifoReturnsZeroAndAnError) {
  auto host = testing::make_loop_host(kIp, 1024);
  testing::run_thread(*host, [](Thread& t) {
    ASSERT_TRUE(t.bind(3).ok());
    uint64_t w = 77;
    EXPECT_EQ(t.read(&w), ApiError::kRxEmpty);
    EXPECT_EQ(w, 0u);
    EXPECT_EQ(t.read(), 0u);
    EXPECT_EQ(t.last_error(), ApiError::kRxEmpty);
    EXPECT_EQ(t.counters().err_rx_empty, 2u);
  });
}

TEST(ThreadTest, ReadingPastTheEndOfAMessageIsAnError) {
  auto host = testing::make_loop_host(kIp, 1024);
  testing::run_thread(*host, [](Thread& t) {
    ASSERT_TRUE(t.bind(3).ok());
    send_self(t, 8, 5);
    (void)t.read();
    EXPECT_EQ(t.read(), 5u);
    uint64_t w = 1;
    EXPECT_EQ(t.read(&w), ApiError::kReadPastEnd);
    EXPECT_EQ(w, 0u);
    EXPECT_EQ(t.counters().err_read_past_end, 1u);
    t.msg_done();
  });
}

TEST(ThreadTest, MsgDoneFlushesUnreadWordsAndTheNextReadIsTheNextHeader) {
  auto host = testing::make_loop_host(kIp, 1024);
  testing::run_thread(*host, [](Thread& t) {
    ASSERT_TRUE(t.bind(3).ok());
    send_self(t, 32, 10);
    send_self(t, 16, 20);
    (void)t.read();
    EXPECT_EQ(t.read(), 10u);
    t.msg_done();  // 3 words unread
    EXPECT_EQ(t.counters().rx_words_flushed, 3u);
    ASSERT_TRUE(t.wait());
    EXPECT_EQ(AppHeader::from_word(t.read()).len, 16u);
    EXPECT_EQ(t.read(), 20u);
    t.msg_done();
  });
}

TEST(ThreadTest, BadLengthsFailCleanlyAndTheirWordsAreDiscarded) {
  auto host = testing::make_loop_host(kIp, /*max_message_bytes=*/256);
  testing::run_thread(*host, [](Thread& t) {
    ASSERT_TRUE(t.bind(3).ok());
    EXPECT_EQ(t.write(AppHeader{kIp, 3, 0}.word()), ApiError::kBadLength);
    EXPECT_EQ(t.write(AppHeader{kIp, 3, 257}.word()), ApiError::kBadLength);
    EXPECT_EQ(t.tx_words_left(), 33u);  // the oversized message's words are swallowed
    for (int i = 0; i < 33; ++i) EXPECT_EQ(t.write(0xdead), ApiError::kBadLength);
    EXPECT_EQ(t.tx_words_left(), 0u);
    EXPECT_EQ(t.counters().err_bad_length, 2u);
    // The next header is a fresh message and works.
    send_self(t, 8, 1);
    EXPECT_EQ(AppHeader::from_word(t.read()).len, 8u);
    EXPECT_EQ(t.read(), 1u);
    t.msg_done();
    EXPECT_EQ(t.counters().tx_msgs, 1u);
  });
}

TEST(ThreadTest, WritingBeforeBindIsAnError) {
  auto host = testing::make_loop_host(kIp, 1024);
  testing::run_thread(*host, [](Thread& t) {
    EXPECT_EQ(t.write(AppHeader{kIp, 3, 8}.word()), ApiError::kNotBound);
    EXPECT_EQ(t.write(1), ApiError::kNotBound);  // its one payload word is discarded
    EXPECT_EQ(t.tx_words_left(), 0u);
  });
}

TEST(ThreadTest, LnicAddContextOutOfRangeFails) {
  auto host = testing::make_loop_host(kIp, 1024);
  int rc_context = 0, rc_priority = 0, rc_ok = -1;
  testing::run_thread(*host, [&](Thread&) {
    rc_context = nanopu_lnic_add_context(70000, 0);
    rc_priority = nanopu_lnic_add_context(5, 300);
    rc_ok = nanopu_lnic_add_context(5, 1);
  });
  EXPECT_EQ(rc_context, -1);
  EXPECT_EQ(rc_priority, -1);
  EXPECT_EQ(rc_ok, 0);
}

TEST(ThreadTest, BindingTwiceOrATakenContextFails) {
  auto host = testing::make_loop_host(kIp, 1024);
  bool first_done = false;
  absl::Status second_bind, rebind;
  ASSERT_TRUE(host->spawn([&](Thread& t) {
    ASSERT_TRUE(t.bind(4).ok());
    rebind = t.bind(5);
    while (!t.stopping() && !first_done) t.idle();
  }).ok());
  ASSERT_TRUE(host->spawn([&](Thread& t) {
    second_bind = t.bind(4);
    first_done = true;
  }).ok());
  ASSERT_TRUE(testing::poll_until({host.get()}, [&] { return host->all_threads_finished(); }));
  EXPECT_EQ(rebind.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(second_bind.code(), absl::StatusCode::kAlreadyExists);
}

TEST(ThreadTest, AContextIsFreeAgainAfterItsThreadEnds) {
  auto host = testing::make_loop_host(kIp, 1024);
  testing::run_thread(*host, [](Thread& t) { ASSERT_TRUE(t.bind(6).ok()); });
  absl::Status again;
  testing::run_thread(*host, [&](Thread& t) { again = t.bind(6); });
  EXPECT_TRUE(again.ok()) << again;
}

TEST(ThreadTest, AThreadThatThrowsEndsAloneAndOthersContinue) {
  auto host = testing::make_loop_host(kIp, 1024);
  bool other_ran = false;
  ASSERT_TRUE(host->spawn([](Thread&) { throw std::runtime_error("boom"); }).ok());
  ASSERT_TRUE(host->spawn([&](Thread& t) {
    ASSERT_TRUE(t.bind(8).ok());
    send_self(t, 8, 9);
    other_ran = t.read() != 0 && t.read() == 9;
    t.msg_done();
  }).ok());
  ASSERT_TRUE(testing::poll_until({host.get()}, [&] { return host->all_threads_finished(); }));
  EXPECT_TRUE(other_ran);
}

TEST(ThreadTest, WaitReturnsFalseWhenTheRuntimeStops) {
  auto host = testing::make_loop_host(kIp, 1024);
  bool returned = false;
  bool result = true;
  ASSERT_TRUE(host->spawn([&](Thread& t) {
    ASSERT_TRUE(t.bind(3).ok());
    result = t.wait();
    returned = true;
  }).ok());
  for (int i = 0; i < 10; ++i) host->poll_once();
  EXPECT_FALSE(returned);
  host->stop();
  ASSERT_TRUE(testing::poll_until({host.get()}, [&] { return returned; }));
  EXPECT_FALSE(result);
}

// wait_for: false once the time has passed with nothing to read (and not
// before), true as soon as a message is there.
TEST(ThreadTest, WaitForTimesOutOrReturnsWithTheMessage) {
  auto host = testing::make_loop_host(kIp, 1024);
  testing::run_thread(*host, [](Thread& t) {
    ASSERT_TRUE(t.bind(3).ok());
    const auto t0 = std::chrono::steady_clock::now();
    EXPECT_FALSE(t.wait_for(std::chrono::milliseconds(20)));
    EXPECT_GE(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(20));
    ASSERT_EQ(t.write(AppHeader{kIp, 3, 8}.word()), ApiError::kOk);
    ASSERT_EQ(t.write(7), ApiError::kOk);
    EXPECT_TRUE(t.wait_for(std::chrono::seconds(30)));
    (void)t.read();
    EXPECT_EQ(t.read(), 7u);
    t.msg_done();
    EXPECT_FALSE(t.wait_for(std::chrono::microseconds(0)));
  });
}

TEST(ThreadTest, ParkedThreadsAreUnwoundWhenTheHostGoes) {
  auto host = testing::make_loop_host(kIp, 1024);
  struct Guard {
    bool* flag;
    ~Guard() { *flag = true; }
  };
  bool destroyed = false;
  ASSERT_TRUE(host->spawn([&](Thread& t) {
    Guard g{&destroyed};
    ASSERT_TRUE(t.bind(3).ok());
    for (;;) t.idle();  // never returns by itself
  }).ok());
  for (int i = 0; i < 10; ++i) host->poll_once();
  host.reset();
  EXPECT_TRUE(destroyed);
}

}  // namespace
}  // namespace nanopu
