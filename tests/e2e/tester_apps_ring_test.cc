// The dot-product service and the packet tester's layouts end to end through
// the real EAL on a net_ring pair: every dot-product reply equals the sum
// computed independently (both variants, both layouts); malformed requests
// get error replies; a tester's CONFIG then N DATA are answered N times
// (service time spun, CONFIG never answered, never the end of the thread),
// and the throughput app's last reply carries the CONFIG's timestamp.
#include <gtest/gtest.h>

#include <functional>
#include <vector>

#include "apps/dot/dot_protocol.h"
#include "apps/dot/dot_service.h"
#include "tools/loadgen/dot_load.h"
#include "apps/loopback/loopback.h"
#include "nanopu/runtime.h"
#include "tests/support/eal_env.h"
#include "tests/support/ring_pair.h"
#include "tests/support/test_hosts.h"

namespace nanopu {
namespace {

constexpr uint32_t kServerIp = 0x0a000001, kClientIp = 0x0a000002;
constexpr uint16_t kServerContext = 30, kClientContext = 3;

using testing::Words;

void run_pair(const std::function<void(Thread&)>& serve, const std::function<void(Thread&)>& client) {
  testing::run_pair(kServerIp, kClientIp, serve, client);
}

Words call(Thread& t, const Words& payload) { return testing::call(t, kServerIp, kServerContext, payload); }

void check_dot_client(apps::DotVariant variant, bool pairs) {
  apps::DotStats stats;
  apps::LoadGenResult r;
  apps::DotLoadResult dr;
  apps::LoadGenOptions o;
  o.server_ip = kServerIp;
  o.server_context = kServerContext;
  o.context = kClientContext;
  o.outstanding = 8;
  o.count = 1500;
  o.drain_timeout_s = 5;
  o.progress = false;
  apps::DotLoadOptions d;
  d.pairs = pairs;
  d.words = 40;
  run_pair([&](Thread& t) { (void)apps::serve_dot(t, kServerContext, 0, variant, &stats); },
           [&](Thread& t) { apps::run_dot_client(t, o, d, &r, &dr); });
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.received, o.count);
  EXPECT_EQ(dr.checked, o.count);
  EXPECT_EQ(r.bad_replies + r.lost + r.given_up, 0u);
  EXPECT_EQ(stats.requests, o.count);
  EXPECT_EQ(stats.errors + stats.dropped, 0u);
}

TEST(DotProductRingTest, OptimalTesterLayoutMatchesTheReference) { check_dot_client(apps::DotVariant::kOptimal, false); }
TEST(DotProductRingTest, NaiveTesterLayoutMatchesTheReference) { check_dot_client(apps::DotVariant::kNaive, false); }
TEST(DotProductRingTest, OptimalListing2LayoutMatchesTheReference) { check_dot_client(apps::DotVariant::kOptimal, true); }
TEST(DotProductRingTest, NaiveListing2LayoutMatchesTheReference) { check_dot_client(apps::DotVariant::kNaive, true); }

// Bad input gets an error reply (or, for a CONFIG, none), never a crash or
// an out-of-bounds read; the thread keeps serving.
TEST(DotProductRingTest, MalformedRequestsGetErrorReplies) {
  for (apps::DotVariant variant : {apps::DotVariant::kOptimal, apps::DotVariant::kNaive}) {
    apps::DotStats stats;
    std::vector<Words> replies;
    run_pair([&](Thread& t) { (void)apps::serve_dot(t, kServerContext, 0, variant, &stats); },
             [&](Thread& t) {
               ASSERT_TRUE(t.bind(kClientContext).ok());
               replies.push_back(call(t, {apps::kDotData, 2, 3, 2000, 77}));    // index 2000
               replies.push_back(call(t, {apps::kDotData, 5, 3, 4, 78}));       // n says 5, 2 given
               replies.push_back(call(t, {9, 1, 2, 79}));                       // unknown type
               replies.push_back(call(t, {apps::kDotPairs, 1, 1999, 2}));       // still serving: 2 x weight[1999]
               replies.push_back(call(t, {apps::kDotConfig, 10, 5}));           // CONFIG: no reply
               replies.push_back(call(t, {apps::kDotData, 3, 1, 2, 3, 80}));    // 1 + 4 + 9
             });
    ASSERT_EQ(replies.size(), 6u);
    EXPECT_EQ(replies[0], (Words{apps::kDotError, apps::kDotIndexOutOfRange, 0, 77}));
    EXPECT_EQ(replies[1], (Words{apps::kDotError, apps::kDotBadLength, 0, 78}));
    EXPECT_EQ(replies[2], (Words{apps::kDotError, apps::kDotUnknownType, 0, 0}));
    EXPECT_EQ(replies[3], (Words{apps::kDotReply, 2 * 1999, 0, 0}));
    EXPECT_TRUE(replies[4].empty());
    EXPECT_EQ(replies[5], (Words{apps::kDotReply, 14, 0, 80}));
    EXPECT_EQ(stats.errors, 3u);
    EXPECT_EQ(stats.configs, 1u);
    EXPECT_EQ(stats.requests, 2u);
  }
}

// The prototype tester's service-time sequence: CONFIG {0, num_msgs,
// timestamp}, then DATA {1, service_time, padding}: each DATA echoed after
// its service time, the CONFIG never answered and never the end of the
// thread (the bug a user met with --app=service).
// Both on the register file and on the traditional path.
class TesterLayoutRingTest : public ::testing::TestWithParam<apps::MessagePath> {};

TEST_P(TesterLayoutRingTest, ServiceTimeConfigThenDataIsAnsweredForEachData) {
  constexpr int kData = 50;
  std::vector<Words> replies;
  Words config_reply = {1};
  const apps::MessagePath path = GetParam();
  run_pair([&](Thread& t) { (void)apps::serve_loopback(t, kServerContext, 0, apps::LoopbackMode::kServiceTester, path); },
           [&](Thread& t) {
             ASSERT_TRUE(t.bind(kClientContext).ok());
             config_reply = call(t, {apps::kTesterConfig, kData, 12345});
             for (int i = 0; i < kData; ++i) {
               Words data = {apps::kTesterData, 300};  // ~94 ns of service time
               for (int p = 0; p < 126; ++p) data.push_back(i * 1000 + p);  // the tester's 1008 bytes of padding
               replies.push_back(call(t, data));
             }
           });
  EXPECT_TRUE(config_reply.empty()) << "a CONFIG is not answered";
  ASSERT_EQ(replies.size(), static_cast<size_t>(kData));
  for (int i = 0; i < kData; ++i) {
    ASSERT_EQ(replies[i].size(), 128u) << "DATA " << i;
    EXPECT_EQ(replies[i][0], apps::kTesterData);
    EXPECT_EQ(replies[i][1], 300u);
    EXPECT_EQ(replies[i][127], static_cast<uint64_t>(i * 1000 + 125));
  }
}

// The throughput layout: CONFIG {0, num_msgs, timestamp}, DATA {1, ...,
// timestamp} echoed; the num_msgs-th reply carries the CONFIG's timestamp.
TEST_P(TesterLayoutRingTest, ThroughputLastReplyCarriesTheConfigTimestamp) {
  constexpr int kData = 20;
  std::vector<Words> replies;
  const apps::MessagePath path = GetParam();
  run_pair([&](Thread& t) { (void)apps::serve_loopback(t, kServerContext, 0, apps::LoopbackMode::kThroughput, path); },
           [&](Thread& t) {
             ASSERT_TRUE(t.bind(kClientContext).ok());
             EXPECT_TRUE(call(t, {apps::kTesterConfig, kData, 4242}).empty());
             for (int i = 0; i < kData; ++i) replies.push_back(call(t, {apps::kTesterData, 7, 8, 9000u + i}));
           });
  ASSERT_EQ(replies.size(), static_cast<size_t>(kData));
  for (int i = 0; i < kData; ++i)
    EXPECT_EQ(replies[i], (Words{apps::kTesterData, 7, 8, i + 1 == kData ? 4242u : 9000u + i})) << "DATA " << i;
}
INSTANTIATE_TEST_SUITE_P(BothPaths, TesterLayoutRingTest,
                         ::testing::Values(apps::MessagePath::kRegisters, apps::MessagePath::kMemory),
                         [](const auto& i) { return std::string(apps::app_mode_name(i.param) == "traditional" ? "Traditional" : "RegisterFile"); });

// --tester_timestamps: an echo server on context 0x1234 gets each request
// with its arrival cycle in the last 4 bytes (the low half of the last
// word), and its echo leaves with [that cycle, cycles since] as the last
// word; the words before are untouched, and a message on another context
// is never rewritten.
TEST(TesterTimestampsRingTest, Context0x1234IsStampedOnTheWayInAndOut) {
  constexpr uint16_t kStamped = 0x1234;
  testing::PortPair p = testing::make_ring_pair();
  Config sc = testing::host_config(p.a, kServerIp);
  sc.tester_timestamps = true;
  auto server = Runtime::create(sc);
  auto host = Runtime::create(testing::host_config(p.b, kClientIp));
  ASSERT_TRUE(server.ok() && host.ok());
  ASSERT_TRUE((*server)->spawn([](Thread& t) { (void)apps::serve_loopback(t, kStamped, 0, apps::LoopbackMode::kEcho); }, 0).ok());
  ASSERT_TRUE((*server)->spawn([](Thread& t) { (void)apps::serve_loopback(t, kServerContext, 0, apps::LoopbackMode::kEcho); }, 0).ok());
  std::vector<Words> stamped, plain;
  bool done = false;
  ASSERT_TRUE((*host)->spawn([&](Thread& t) {
    ASSERT_TRUE(t.bind(kClientContext).ok());
    auto ask = [&](uint16_t ctx, const Words& w) {
      (void)t.write(AppHeader{kServerIp, ctx, static_cast<uint16_t>(8 * w.size())}.word());
      for (uint64_t x : w) (void)t.write(x);
      if (!t.wait_for(std::chrono::milliseconds(2000))) return Words{};
      const AppHeader h = AppHeader::from_word(t.read());
      Words r(h.payload_words());
      for (uint64_t& x : r) x = t.read();
      t.msg_done();
      return r;
    };
    for (int i = 0; i < 20; ++i) stamped.push_back(ask(kStamped, {1, 7, 0xaaaa'bbbb'cccc'dddd}));
    plain.push_back(ask(kServerContext, {1, 7, 0xaaaa'bbbb'cccc'dddd}));
    done = true;
  }).ok());
  ASSERT_TRUE(testing::poll_until({server->get(), host->get()}, [&] { return done; }, std::chrono::seconds(60)));
  ASSERT_EQ(plain.size(), 1u);
  EXPECT_EQ(plain[0], (Words{1, 7, 0xaaaa'bbbb'cccc'dddd}));
  ASSERT_EQ(stamped.size(), 20u);
  uint32_t previous = 0;
  for (size_t i = 0; i < stamped.size(); ++i) {
    ASSERT_EQ(stamped[i].size(), 3u);
    EXPECT_EQ(stamped[i][0], 1u);
    EXPECT_EQ(stamped[i][1], 7u);
    const auto arrival = static_cast<uint32_t>(stamped[i][2] >> 32);
    const auto latency = static_cast<uint32_t>(stamped[i][2]);
    EXPECT_NE(arrival, 0xaaaa'bbbbu) << "the request's own high half was replaced by the arrival cycle";
    EXPECT_LT(latency, 3'200'000'000u) << "less than a second of model cycles between arrival and departure";
    if (i > 0) {
      EXPECT_GT(static_cast<uint32_t>(arrival - previous), 0u) << "arrival cycles advance";
    }
    previous = arrival;
  }
}

}  // namespace
}  // namespace nanopu
