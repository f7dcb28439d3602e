// The traditional path of nanopu::Thread (nanopu/memory_message.h): whole
// messages copied to and from memory, on a host whose port loops back to
// itself (real EAL, net_ring), mixed with the word API, and its misuse.
#include "nanopu/memory_message.h"

#include <gtest/gtest.h>

#include <vector>

#include "nanopu/runtime.h"
#include "tests/support/eal_env.h"
#include "tests/support/test_hosts.h"

namespace nanopu {
namespace {

constexpr uint32_t kIp = 0x0a000001;

uint64_t word_of(uint32_t len, uint32_t i) { return 0x0102030405060708ull * (i + 1) + len; }

// What the wire keeps of a payload of len bytes: a short last word's bytes
// past len are dropped, and arrive as zeros.
std::vector<uint64_t> as_received(std::vector<uint64_t> w, uint32_t len) {
  if (const uint32_t tail = len % 8; tail != 0) w.back() &= ~0ull << (8 * (8 - tail));
  return w;
}

// Every length from 1 B to past three packets (1024 B each), both ways
// through memory.
TEST(MemoryPathTest, EveryLengthComesBackWordForWordAcrossPackets) {
  auto host = testing::make_loop_host(kIp, 4096);
  testing::run_thread(*host, [](Thread& t) {
    ASSERT_TRUE(t.bind(3).ok());
    MemoryMessage m;
    for (uint32_t len = 1; len <= 3100; len += len < 64 ? 1 : 37) {
      std::vector<uint64_t> words((len + 7) / 8);
      for (uint32_t i = 0; i < words.size(); ++i) words[i] = word_of(len, i);
      ASSERT_EQ(t.send_message(AppHeader{kIp, 3, static_cast<uint16_t>(len)}, words), ApiError::kOk) << len;
      ASSERT_TRUE(t.wait());
      ASSERT_EQ(t.receive_message(&m), ApiError::kOk) << len;
      EXPECT_EQ(m.header, (AppHeader{kIp, 3, static_cast<uint16_t>(len)}));
      ASSERT_EQ(m.payload, as_received(words, len)) << len;
      EXPECT_GT(m.rx_tsc, 0u);
      EXPECT_FALSE(t.msgs_ready()) << "receive_message finishes the message";
    }
    EXPECT_EQ(t.counters().rx_words_flushed, 0u);
  });
}

// The two paths meet on the wire: words written one by one arrive whole in
// memory, a message sent from memory is read word by word, and a message
// begun with read() gives receive_message the words not yet read.
TEST(MemoryPathTest, MixesWithTheWordApi) {
  auto host = testing::make_loop_host(kIp, 4096);
  testing::run_thread(*host, [](Thread& t) {
    ASSERT_TRUE(t.bind(3).ok());
    MemoryMessage m;
    ASSERT_EQ(t.write(AppHeader{kIp, 3, 20}.word()), ApiError::kOk);
    for (uint64_t w : {11, 12, 13}) ASSERT_EQ(t.write(w), ApiError::kOk);
    ASSERT_TRUE(t.wait());
    ASSERT_EQ(t.receive_message(&m), ApiError::kOk);
    EXPECT_EQ(m.payload, (std::vector<uint64_t>{11, 12, 13 & ~0xffffffffull}));

    const std::vector<uint64_t> sent = {21, 22, 23, 24};
    ASSERT_EQ(t.send_message(AppHeader{kIp, 3, 32}, sent), ApiError::kOk);
    ASSERT_TRUE(t.wait());
    EXPECT_EQ(AppHeader::from_word(t.read()), (AppHeader{kIp, 3, 32}));
    EXPECT_EQ(t.read(), 21u);
    ASSERT_EQ(t.receive_message(&m), ApiError::kOk);  // the rest
    EXPECT_EQ(m.header.len, 32u);
    EXPECT_EQ(m.payload, (std::vector<uint64_t>{22, 23, 24}));
    EXPECT_FALSE(t.msgs_ready());
  });
}

TEST(MemoryPathTest, MisuseFailsCleanlyAndLeavesTheThreadUsable) {
  auto host = testing::make_loop_host(kIp, 1024);
  testing::run_thread(*host, [](Thread& t) {
    MemoryMessage m;
    const std::vector<uint64_t> one = {1};
    EXPECT_EQ(t.send_message(AppHeader{kIp, 3, 8}, one), ApiError::kNotBound);
    ASSERT_TRUE(t.bind(3).ok());
    // Nothing waiting: a poll's answer, not counted as a read of an empty FIFO.
    EXPECT_EQ(t.receive_message(&m), ApiError::kRxEmpty);
    EXPECT_EQ(t.counters().err_rx_empty, 0u);
    // The words must be exactly ceil(len/8); len 0 and above the maximum fail.
    const std::vector<uint64_t> two = {1, 2};
    EXPECT_EQ(t.send_message(AppHeader{kIp, 3, 8}, two), ApiError::kBadLength);
    EXPECT_EQ(t.send_message(AppHeader{kIp, 3, 17}, two), ApiError::kBadLength);
    EXPECT_EQ(t.send_message(AppHeader{kIp, 3, 0}, {}), ApiError::kBadLength);
    const std::vector<uint64_t> big(2048 / 8, 7);
    EXPECT_EQ(t.send_message(AppHeader{kIp, 3, 2048}, big), ApiError::kBadLength);
    // Not while write() has a message open; that message still completes.
    ASSERT_EQ(t.write(AppHeader{kIp, 3, 16}.word()), ApiError::kOk);
    ASSERT_EQ(t.write(5), ApiError::kOk);
    EXPECT_EQ(t.send_message(AppHeader{kIp, 3, 8}, one), ApiError::kMessageOpen);
    EXPECT_EQ(t.last_error(), ApiError::kMessageOpen);
    ASSERT_EQ(t.write(6), ApiError::kOk);
    ASSERT_TRUE(t.wait());
    ASSERT_EQ(t.receive_message(&m), ApiError::kOk);
    EXPECT_EQ(m.payload, (std::vector<uint64_t>{5, 6}));
    // And nothing else was sent by the failed calls.
    EXPECT_EQ(t.receive_message(&m), ApiError::kRxEmpty);
    EXPECT_EQ(t.counters().tx_msgs, 1u);
  });
}

// serve_from_memory: an echo service on the traditional path answers a
// client thread on the same host until the runtime stops.
TEST(MemoryPathTest, ServeFromMemoryAnswersUntilTheRuntimeStops) {
  auto host = testing::make_loop_host(kIp, 4096);
  uint64_t served = 0;
  bool server_returned = false;
  ASSERT_TRUE(host->spawn([&](Thread& t) {
    ASSERT_TRUE(t.bind(5).ok());
    serve_from_memory(t, [&](const MemoryMessage& m) {
      ++served;
      ASSERT_EQ(t.send_message(m.header, m.words()), ApiError::kOk);
    });
    server_returned = true;
  }).ok());
  bool client_done = false;
  ASSERT_TRUE(host->spawn([&](Thread& t) {
    ASSERT_TRUE(t.bind(6).ok());
    MemoryMessage m;
    for (uint32_t len = 8; len <= 2600; len += 104) {
      std::vector<uint64_t> words((len + 7) / 8);
      for (uint32_t i = 0; i < words.size(); ++i) words[i] = word_of(len, i);
      ASSERT_EQ(t.send_message(AppHeader{kIp, 5, static_cast<uint16_t>(len)}, words), ApiError::kOk);
      ASSERT_TRUE(t.wait());
      ASSERT_EQ(t.receive_message(&m), ApiError::kOk);
      EXPECT_EQ(m.header, (AppHeader{kIp, 5, static_cast<uint16_t>(len)}));
      ASSERT_EQ(m.payload, words) << len;
    }
    client_done = true;
  }).ok());
  ASSERT_TRUE(testing::poll_until({host.get()}, [&] { return client_done; }));
  EXPECT_EQ(served, 25u);
  EXPECT_FALSE(server_returned);
  host->stop();
  ASSERT_TRUE(testing::poll_until({host.get()}, [&] { return server_returned; }));
}

}  // namespace
}  // namespace nanopu
