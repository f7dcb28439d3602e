// Thread::read_words/write_words: the same as a call per word, whatever the
// split, across packet segments; errors as read()/write() report them. On a
// host whose port loops back to itself (real EAL, net_ring).
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "nanopu/lnic.h"
#include "nanopu/runtime.h"
#include "nanopu/thread.h"
#include "tests/support/eal_env.h"
#include "tests/support/test_hosts.h"

namespace nanopu {
namespace {

constexpr uint32_t kIp = 0x0a000001;

// A message of len bytes to context 3 of this host, header first.
std::vector<uint64_t> message(uint16_t len, uint64_t seed) {
  std::vector<uint64_t> w = {AppHeader{kIp, 3, len}.word()};
  for (uint32_t i = 0; i < (len + 7u) / 8; ++i) w.push_back(seed * 0x9e3779b97f4a7c15ull + i);
  return w;
}

// As it arrives: a short last word keeps only its first len % 8 bytes.
std::vector<uint64_t> received(std::vector<uint64_t> w, uint16_t len) {
  if (len % 8 != 0) w.back() &= ~0ull << (8 * (8 - len % 8));
  return w;
}

TEST(BulkWordsTest, AnySplitEqualsAWordAtATimeAcrossPackets) {
  auto host = testing::make_loop_host(kIp, 4096);
  testing::run_thread(*host, [](Thread& t) {
    ASSERT_TRUE(t.bind(3).ok());
    uint64_t seed = 1;
    for (uint16_t len : {1, 8, 9, 1023, 1024, 1025, 3000, 4096}) {
      for (size_t chunk : {1, 3, 7, 128, 129, 1000}) {
        const std::vector<uint64_t> sent = message(len, ++seed);
        for (size_t i = 0; i < sent.size(); i += chunk)
          ASSERT_EQ(t.write_words({sent.data() + i, std::min(chunk, sent.size() - i)}), ApiError::kOk);
        ASSERT_TRUE(t.wait());
        std::vector<uint64_t> got(sent.size());
        for (size_t i = 0; i < got.size(); i += chunk)
          ASSERT_EQ(t.read_words({got.data() + i, std::min(chunk, got.size() - i)}), ApiError::kOk);
        ASSERT_EQ(got, received(sent, len)) << len << " B in chunks of " << chunk;
        EXPECT_EQ(t.rx_words_left(), 0u);
        t.msg_done();
      }
    }
    EXPECT_EQ(t.counters().rx_words_flushed, 0u);
    EXPECT_EQ(t.counters().err_read_past_end, 0u);
  });
}

// One span may end a message and begin the next, as many write() calls do;
// the word API reads what the bulk one wrote and the other way round.
TEST(BulkWordsTest, OneSpanCarriesTwoMessagesAndMixesWithTheWordApi) {
  auto host = testing::make_loop_host(kIp, 4096);
  testing::run_thread(*host, [](Thread& t) {
    ASSERT_TRUE(t.bind(3).ok());
    std::vector<uint64_t> both = message(20, 7);
    const std::vector<uint64_t> second = message(1100, 8);
    both.insert(both.end(), second.begin(), second.end());
    ASSERT_EQ(t.write_words(both), ApiError::kOk);
    EXPECT_EQ(t.tx_words_left(), 0u);
    ASSERT_TRUE(t.wait());
    const std::vector<uint64_t> first = received(message(20, 7), 20);
    for (uint64_t w : first) EXPECT_EQ(t.read(), w);  // word by word
    t.msg_done();
    ASSERT_TRUE(t.wait());
    std::vector<uint64_t> got(second.size());
    EXPECT_EQ(t.read(), second[0]);  // the header by read(), the rest in bulk
    ASSERT_EQ(t.read_words({got.data() + 1, got.size() - 1}), ApiError::kOk);
    got[0] = second[0];
    EXPECT_EQ(got, received(second, 1100));
    t.msg_done();
  });
}

TEST(BulkWordsTest, ErrorsAreThoseOfTheWordCalls) {
  auto host = testing::make_loop_host(kIp, 4096);
  testing::run_thread(*host, [](Thread& t) {
    ASSERT_TRUE(t.bind(3).ok());
    // An empty FIFO: kRxEmpty, every word zeroed.
    std::vector<uint64_t> got(4, 9);
    EXPECT_EQ(t.read_words(got), ApiError::kRxEmpty);
    EXPECT_EQ(got, std::vector<uint64_t>(4, 0));
    // Past the end: the words that exist, then zeros and kReadPastEnd once.
    ASSERT_EQ(t.write_words(message(16, 3)), ApiError::kOk);
    ASSERT_TRUE(t.wait());
    got.assign(6, 9);
    EXPECT_EQ(t.read_words(got), ApiError::kReadPastEnd);
    const std::vector<uint64_t> sent = message(16, 3);
    EXPECT_EQ(got, (std::vector<uint64_t>{sent[0], sent[1], sent[2], 0, 0, 0}));
    EXPECT_EQ(t.counters().err_read_past_end, 1u);
    t.msg_done();
    // A bad header: its error returned, its words discarded, and the next
    // message in the same span still sent.
    std::vector<uint64_t> span = {AppHeader{kIp, 3, 8000}.word()};
    span.resize(1 + 1000, 5);
    const std::vector<uint64_t> good = message(24, 4);
    span.insert(span.end(), good.begin(), good.end());
    EXPECT_EQ(t.write_words(span), ApiError::kBadLength);
    ASSERT_TRUE(t.wait());
    got.assign(good.size(), 0);
    ASSERT_EQ(t.read_words(got), ApiError::kOk);
    EXPECT_EQ(got, good);
    t.msg_done();
    EXPECT_EQ(t.counters().tx_msgs, 2u);
  });
}

// read() and write() take runs of words inline and count them into the
// message only when an out-of-line call comes (Thread::settle_runs): every
// call that may follow a run — the bulk forms, msg_done(), the counts —
// sees the message exactly where the words left it, inside a packet and
// across packet boundaries.
TEST(BulkWordsTest, WordRunsStopExactlyWhereTheNextCallBegins) {
  auto host = testing::make_loop_host(kIp, 4096);
  testing::run_thread(*host, [](Thread& t) {
    ASSERT_TRUE(t.bind(3).ok());
    uint64_t seed = 100;
    for (uint16_t len : {64, 1000, 1024, 1025, 3000, 4096}) {
      for (uint32_t by_word : {1u, 5u, 17u, 40u, 130u}) {
        const std::vector<uint64_t> sent = message(len, ++seed);
        const uint32_t n = std::min<uint32_t>(by_word, static_cast<uint32_t>(sent.size()) - 1);
        // The header and n words one at a time, then the rest in bulk.
        for (uint32_t i = 0; i <= n; ++i) ASSERT_EQ(t.write(sent[i]), ApiError::kOk);
        EXPECT_EQ(t.tx_words_left(), sent.size() - 1 - n) << len << " B, " << n << " by word";
        if (n + 1 < sent.size()) {
          ASSERT_EQ(t.write_words({sent.data() + n + 1, sent.size() - 1 - n}), ApiError::kOk);
        }
        EXPECT_EQ(t.tx_words_left(), 0u);
        ASSERT_TRUE(t.wait());
        std::vector<uint64_t> got(sent.size());
        for (uint32_t i = 0; i <= n; ++i) got[i] = t.read();
        EXPECT_EQ(t.rx_words_left(), sent.size() - 1 - n) << len << " B, " << n << " by word";
        if (n + 1 < got.size()) {
          ASSERT_EQ(t.read_words({got.data() + n + 1, got.size() - 1 - n}), ApiError::kOk);
        }
        ASSERT_EQ(got, received(sent, len)) << len << " B, " << n << " by word";
        t.msg_done();
        // Again, left mid-run: msg_done() flushes exactly the words not read.
        const uint64_t flushed = t.counters().rx_words_flushed;
        ASSERT_EQ(t.write_words(sent), ApiError::kOk);
        ASSERT_TRUE(t.wait());
        for (uint32_t i = 0; i <= n; ++i) ASSERT_EQ(t.read(), received(sent, len)[i]);
        t.msg_done();
        EXPECT_EQ(t.counters().rx_words_flushed - flushed, sent.size() - 1 - n) << len << " B, " << n;
      }
    }
    EXPECT_EQ(t.counters().err_read_past_end, 0u);
  });
}

// The lnic.h forms, as a ported nanoPU program calls them.
TEST(BulkWordsTest, LnicBulkMacros) {
  auto host = testing::make_loop_host(kIp, 4096);
  testing::run_thread(*host, [](Thread&) {
    ASSERT_EQ(lnic_add_context(3, 0), 0);
    const std::vector<uint64_t> sent = message(40, 5);
    lnic_write_words(sent.data(), sent.size());
    lnic_wait();
    std::vector<uint64_t> got(sent.size());
    lnic_read_words(got.data(), got.size());
    lnic_msg_done();
    EXPECT_EQ(got, sent);
  });
}

}  // namespace
}  // namespace nanopu
