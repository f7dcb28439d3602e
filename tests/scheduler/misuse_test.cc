// Misuse of the message framing is loud and loses nothing (issue 33): each
// case returns its ApiError, is counted, and never turns one message's
// words into another's — and the messages around it arrive intact. A host
// whose port loops back to itself: the thread writes to its own context.
#include <gtest/gtest.h>

#include <vector>

#include "nanopu/runtime.h"
#include "nanopu/stats.h"
#include "tests/support/eal_env.h"
#include "tests/support/test_hosts.h"

namespace nanopu {
namespace {

constexpr uint32_t kIp = 0x0a000001;
constexpr uint16_t kContext = 5;

// Reads the `expected` messages that come back to the thread, then anything
// more within 100 ms: their payload words, one vector per message.
std::vector<std::vector<uint64_t>> receive_all(Thread& t, size_t expected) {
  std::vector<std::vector<uint64_t>> got;
  while (t.wait_for(got.size() < expected ? std::chrono::microseconds(5000000)
                                          : std::chrono::microseconds(100000))) {
    if (!t.msgs_ready()) continue;
    const AppHeader h = AppHeader::from_word(t.read());
    std::vector<uint64_t> words(h.payload_words());
    for (uint64_t& w : words) w = t.read();
    t.msg_done();
    got.push_back(words);
  }
  return got;
}

ApiError send(Thread& t, std::initializer_list<uint64_t> words) {
  if (const ApiError e = t.write_header(kIp, kContext, words.size() * 8); e != ApiError::kOk) return e;
  for (uint64_t w : words)
    if (const ApiError e = t.write(w); e != ApiError::kOk) return e;
  return ApiError::kOk;
}

class MisuseTest : public ::testing::Test {
 protected:
  void run(const std::function<void(Thread&)>& body) {
    host_ = testing::make_loop_host(kIp, 65535);
    ASSERT_NE(host_, nullptr);
    Thread* thread = nullptr;
    testing::run_thread(*host_, [&](Thread& t) {
      thread = &t;
      ASSERT_TRUE(t.bind(kContext).ok());
      body(t);
    });
    if (thread != nullptr) counters_ = thread->counters();  // after the thread's end
  }
  std::unique_ptr<Runtime> host_;
  ThreadCounters counters_;
};

TEST_F(MisuseTest, AWordPastTheMessagesEndIsRefusedAsAHeaderAndTheNextMessageIsIntact) {
  run([](Thread& t) {
    ASSERT_EQ(send(t, {0xa1}), ApiError::kOk);
    // One word too many: it would have been the header of a 4369-byte message to 0.0.0.0.
    EXPECT_EQ(t.write(0x1111), ApiError::kBadHeader);
    EXPECT_EQ(t.tx_words_left(), 0u) << "no message begun";
    ASSERT_EQ(send(t, {0xb1, 0xb2}), ApiError::kOk);
    const auto got = receive_all(t, 2);
    ASSERT_EQ(got.size(), 2u);
    EXPECT_EQ(got[0], (std::vector<uint64_t>{0xa1}));
    EXPECT_EQ(got[1], (std::vector<uint64_t>{0xb1, 0xb2})) << "the next message is untouched";
  });
  EXPECT_EQ(counters_.err_bad_header, 1u);
  EXPECT_EQ(host_->nic_counters().tx_msgs, 2u) << "nothing else was sent";
}

TEST_F(MisuseTest, AMessageLeftShortIsDroppedWhenTheNextHeaderComesNotMangledIntoIt) {
  run([](Thread& t) {
    ASSERT_EQ(t.write_header(kIp, kContext, 24), ApiError::kOk);
    ASSERT_EQ(t.write(0xc1), ApiError::kOk);  // two words short
    EXPECT_EQ(t.write_header(kIp, kContext, 16), ApiError::kIncomplete) << "the short one dropped";
    ASSERT_EQ(t.write(0xd1), ApiError::kOk);
    ASSERT_EQ(t.write(0xd2), ApiError::kOk);
    const auto got = receive_all(t, 1);
    ASSERT_EQ(got.size(), 1u) << "only the whole message left";
    EXPECT_EQ(got[0], (std::vector<uint64_t>{0xd1, 0xd2}));
  });
  EXPECT_EQ(counters_.err_incomplete, 1u);
  EXPECT_EQ(host_->nic_counters().tx_msgs_failed, 0u) << "nothing mangled went out to be given up";
}

TEST_F(MisuseTest, ASecondMsgDoneIsAnErrorAndTheNextRequestIsStillRead) {
  run([](Thread& t) {
    for (uint64_t i = 1; i <= 6; ++i) ASSERT_EQ(send(t, {i}), ApiError::kOk);
    std::vector<uint64_t> seen;
    while (seen.size() < 6 && t.wait_for(std::chrono::seconds(5))) {
      (void)t.read();
      seen.push_back(t.read());
      t.msg_done();
      t.msg_done();  // the misuse: nothing is being read
      EXPECT_EQ(t.last_error(), ApiError::kNoMessage);
    }
    EXPECT_EQ(seen, (std::vector<uint64_t>{1, 2, 3, 4, 5, 6})) << "no request lost";
  });
  EXPECT_EQ(counters_.err_no_message, 6u);
  EXPECT_EQ(counters_.rx_words_flushed, 0u) << "the second msg_done() flushed nothing";
}

TEST_F(MisuseTest, AWaitedForMessageMayBeDroppedUnreadWithOneMsgDone) {
  run([](Thread& t) {
    ASSERT_EQ(send(t, {7, 8}), ApiError::kOk);
    ASSERT_EQ(send(t, {9}), ApiError::kOk);
    ASSERT_TRUE(t.wait());
    t.msg_done();  // the hardware's view: drops the reported message whole
    EXPECT_EQ(t.last_error(), ApiError::kOk);
    const auto got = receive_all(t, 1);
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(got[0], (std::vector<uint64_t>{9}));
  });
  EXPECT_EQ(counters_.rx_words_flushed, 3u);
  EXPECT_EQ(counters_.err_no_message, 0u);
}

TEST_F(MisuseTest, ALengthPast65535IsRefusedWhereTheHeaderIsMadeNotWrapped) {
  run([](Thread& t) {
    EXPECT_EQ(t.write_header(kIp, kContext, 70000), ApiError::kTooLong);
    EXPECT_EQ(t.tx_words_left(), 0u);
    std::vector<uint64_t> words(8750, 0x42);  // 70000 bytes' worth of words, written anyway
    EXPECT_EQ(t.write_words(words), ApiError::kBadHeader) << "stray words are refused, not sent as messages";
    ASSERT_EQ(send(t, {0xe1}), ApiError::kOk);
    const auto got = receive_all(t, 1);
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(got[0], (std::vector<uint64_t>{0xe1}));
  });
  EXPECT_EQ(counters_.err_too_long, 1u);
  EXPECT_GE(counters_.err_bad_header, 1u);
  EXPECT_EQ(host_->nic_counters().tx_msgs, 1u);
}

TEST_F(MisuseTest, AHeaderToNowhereIsRefused) {
  run([](Thread& t) {
    EXPECT_EQ(t.write_header(0, kContext, 8), ApiError::kBadHeader);
    EXPECT_EQ(t.write(AppHeader{0, kContext, 8}.word()), ApiError::kBadHeader);
  });
  EXPECT_EQ(counters_.err_bad_header, 2u);
  EXPECT_EQ(host_->nic_counters().tx_msgs, 0u);
}

TEST_F(MisuseTest, AMessageHalfWrittenAtMsgDoneOrAtTheThreadsEndIsDroppedAndReported) {
  run([](Thread& t) {
    ASSERT_EQ(send(t, {1}), ApiError::kOk);
    ASSERT_TRUE(t.wait());
    (void)t.read();
    ASSERT_EQ(t.write_header(kIp, kContext, 16), ApiError::kOk);
    ASSERT_EQ(t.write(0xf1), ApiError::kOk);  // one word short
    t.msg_done();
    EXPECT_EQ(t.last_error(), ApiError::kIncomplete);
    ASSERT_EQ(t.write_header(kIp, kContext, 16), ApiError::kOk);
    ASSERT_EQ(t.write(0xf2), ApiError::kOk);  // and the thread ends here
  });
  EXPECT_EQ(counters_.err_incomplete, 2u);
  EXPECT_EQ(host_->nic_counters().tx_msgs, 1u) << "only the whole first message went out";
}

}  // namespace
}  // namespace nanopu
