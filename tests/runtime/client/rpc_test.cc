// Calls (nanopu/rpc.h) between two in-process hosts on a net_ring pair:
// replies matched to calls by id with many in flight, every reply checked;
// a deadline that passes completes the call and its late reply is dropped;
// a request the transport gives up completes with kNoAnswer, named by id;
// a server restarted with a call it took unanswered completes that call with
// kPeerRestarted, long before its deadline.
#include <gtest/gtest.h>

#include <chrono>
#include <atomic>
#include <map>
#include <vector>

#include "nanopu/rpc.h"
#include "nanopu/runtime.h"
#include "tests/support/eal_env.h"
#include "tests/support/test_hosts.h"

namespace nanopu {
namespace {

constexpr uint32_t kServerIp = 0x0a000001;
constexpr uint32_t kClientIp = 0x0a000002;
constexpr uint16_t kServerContext = 5;
constexpr uint16_t kClientContext = 9;

// The server: each request's words reversed and incremented; a request whose
// first word is 0 makes it wait `stall_ms` first, or until *release turns
// true (set by another thread of the same process).
void serve(Thread& t, int stall_ms, const bool* release = nullptr) {
  (void)rpc::serve_calls(t, kServerContext, 0, [&](rpc::ServerCall& c) {
    std::vector<uint64_t> in(c.request_words());
    (void)c.read_words(in);
    if (!in.empty() && in[0] == 0) {
      const uint64_t until = t.now_ns() + uint64_t(stall_ms) * 1000000;
      while (t.now_ns() < until && !t.stopping() && !(release != nullptr && *release)) t.idle();
    }
    std::vector<uint64_t> out(in.rbegin(), in.rend());
    for (uint64_t& w : out) ++w;
    ASSERT_EQ(c.reply(c.request_bytes()), ApiError::kOk);
    (void)c.write_words(out);
  });
}

TEST(RpcTest, ManyCallsInFlightGetTheirOwnRepliesWhateverTheOrder) {
  testing::RingHosts h = testing::make_ring_hosts(kServerIp, kClientIp);
  ASSERT_TRUE(h.server && h.client);
  ASSERT_TRUE(h.server->spawn([](Thread& t) { serve(t, 0); }).ok());
  constexpr uint64_t kCalls = 2000;
  uint64_t ok = 0, bad = 0;
  bool done = false;
  ASSERT_TRUE(h.client->spawn([&](Thread& t) {
    ASSERT_TRUE(t.bind(kClientContext).ok());
    rpc::Client client(t);
    std::map<uint64_t, std::vector<uint64_t>> sent;  // by call id
    uint64_t next = 1;
    while (ok + bad < kCalls) {
      while (client.in_flight() < 16 && next <= kCalls) {
        const uint32_t words = 1 + next % 40;
        std::vector<uint64_t> req(words);
        for (uint32_t i = 0; i < words; ++i) req[i] = next * 1000 + i;
        uint64_t id = 0;
        ASSERT_EQ(client.call({kServerIp, kServerContext}, req, words * 8, std::chrono::seconds(10), next, &id),
                  ApiError::kOk);
        sent[id] = req;
        ++next;
      }
      rpc::Completion c;
      if (!client.next(&c, std::chrono::seconds(10))) break;
      ASSERT_EQ(c.status, rpc::CallStatus::kOk);
      const std::vector<uint64_t>& req = sent.at(c.id);
      bool right = c.reply_bytes == req.size() * 8 && c.reply.size() == req.size();
      for (size_t i = 0; right && i < req.size(); ++i) right = c.reply[i] == req[req.size() - 1 - i] + 1;
      (right ? ok : bad) += 1;
      sent.erase(c.id);
    }
    EXPECT_EQ(client.counters().stray_messages, 0u);
    EXPECT_EQ(client.counters().late_replies, 0u);
    done = true;
  }).ok());
  ASSERT_TRUE(testing::poll_until({h.server.get(), h.client.get()}, [&] { return done; }, std::chrono::seconds(60)));
  EXPECT_EQ(ok, kCalls);
  EXPECT_EQ(bad, 0u);
}

TEST(RpcTest, APassedDeadlineCompletesTheCallAndItsLateReplyIsDroppedNotMistaken) {
  testing::RingHosts h = testing::make_ring_hosts(kServerIp, kClientIp);
  ASSERT_TRUE(h.server && h.client);
  // The slow call's reply waits until its caller has seen the deadline pass
  // (10 s at most), not a fixed 200 ms: a process that lost its CPU for
  // that long would find the reply and the deadline due together, and the
  // reply is taken first.
  bool deadline_seen = false;
  ASSERT_TRUE(h.server->spawn([&](Thread& t) { serve(t, 10000, &deadline_seen); }).ok());
  std::vector<rpc::Completion> seen;
  std::vector<uint64_t> second_reply;
  uint64_t late = 0;
  bool done = false;
  ASSERT_TRUE(h.client->spawn([&](Thread& t) {
    ASSERT_TRUE(t.bind(kClientContext).ok());
    rpc::Client client(t);
    const std::vector<uint64_t> slow = {0}, fast = {41};
    uint64_t id = 0;
    ASSERT_EQ(client.call({kServerIp, kServerContext}, slow, 8, std::chrono::milliseconds(20), 1, &id), ApiError::kOk);
    rpc::Completion c;
    ASSERT_TRUE(client.next(&c, std::chrono::seconds(10)));
    seen.push_back(c);
    deadline_seen = true;
    // The slow reply comes back while the next call waits: counted late.
    ASSERT_EQ(client.call({kServerIp, kServerContext}, fast, 8, std::chrono::seconds(10), 2, &id), ApiError::kOk);
    ASSERT_TRUE(client.next(&c, std::chrono::seconds(10)));
    seen.push_back(c);
    second_reply.assign(c.reply.begin(), c.reply.end());
    late = client.counters().late_replies;
    done = true;
  }).ok());
  ASSERT_TRUE(testing::poll_until({h.server.get(), h.client.get()}, [&] { return done; }, std::chrono::seconds(30)));
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0].status, rpc::CallStatus::kDeadlineExceeded);
  EXPECT_EQ(seen[0].user, 1u);
  EXPECT_EQ(seen[1].status, rpc::CallStatus::kOk);
  EXPECT_EQ(seen[1].user, 2u);
  EXPECT_EQ(second_reply, (std::vector<uint64_t>{42})) << "the fast call's own reply, not the slow one's";
  EXPECT_EQ(late, 1u);
}

TEST(RpcTest, ARequestTheTransportGivesUpCompletesWithNoAnswerNamedById) {
  testing::PortPair p = testing::make_ring_pair();
  Config sc = testing::host_config(p.a, kServerIp), cc = testing::host_config(p.b, kClientIp);
  cc.peer_dead_ms = 100;  // the server answers others: given up after 4 x 100 ms without progress
  cc.rto_us = 20;
  sc.ack_hold_us = 0;
  auto server = Runtime::create(sc);
  auto client = Runtime::create(cc);
  ASSERT_TRUE(server.ok() && client.ok());
  ASSERT_TRUE((*server)->spawn([](Thread& t) { serve(t, 0); }).ok());
  std::vector<rpc::Completion> seen;
  bool done = false;
  ASSERT_TRUE((*client)->spawn([&](Thread& t) {
    ASSERT_TRUE(t.bind(kClientContext).ok());
    rpc::Client c(t);
    const std::vector<uint64_t> req = {5};
    uint64_t lost = 0, answered = 0;
    // To a context nobody serves: never acknowledged, given up after 4 x peer_dead.
    ASSERT_EQ(c.call({kServerIp, 77}, req, 8, std::chrono::seconds(30), 7, &lost), ApiError::kOk);
    ASSERT_EQ(c.call({kServerIp, kServerContext}, req, 8, std::chrono::seconds(30), 8, &answered), ApiError::kOk);
    rpc::Completion x;
    while (seen.size() < 2 && c.next(&x, std::chrono::seconds(20))) seen.push_back(x);
    done = true;
  }).ok());
  ASSERT_TRUE(testing::poll_until({server->get(), client->get()}, [&] { return done; }, std::chrono::seconds(60)));
  ASSERT_EQ(seen.size(), 2u);
  std::map<uint64_t, rpc::CallStatus> by_user;
  for (const rpc::Completion& x : seen) by_user[x.user] = x.status;
  EXPECT_EQ(by_user.at(7), rpc::CallStatus::kNoAnswer);
  EXPECT_EQ(by_user.at(8), rpc::CallStatus::kOk);
  EXPECT_EQ((*client)->nic_counters().tx_msgs_failed, 1u);
}

// The server takes call B and dies before answering it; a new run of it
// starts on the same address. C, sent to the old run after it died, is
// refused by the new one (GONE); that refusal tells the client's NIC the
// server restarted, so B completes with kPeerRestarted, named by id, long
// before its 30 s deadline; D, sent after, is answered by the new run.
TEST(RpcTest, ACallTakenByAServerThatRestartedCompletesWithPeerRestarted) {
  testing::PortPair p = testing::make_ring_pair();
  Config sc = testing::host_config(p.a, kServerIp), cc = testing::host_config(p.b, kClientIp);
  sc.ack_hold_us = 0;
  auto server = Runtime::create(sc);
  auto client = Runtime::create(cc);
  ASSERT_TRUE(server.ok() && client.ok());
  std::atomic<bool> stalled{false};
  ASSERT_TRUE((*server)->spawn([&](Thread& t) {
    (void)rpc::serve_calls(t, kServerContext, 0, [&](rpc::ServerCall& c) {
      if (c.read() != 0) return;  // an empty reply
      stalled = true;             // B: never answered by this run
      while (!t.stopping()) t.idle();
      (void)c.reply(0);
    });
  }).ok());
  std::map<uint64_t, rpc::Completion> by_user;
  std::atomic<bool> restarted{false};
  bool done = false;
  ASSERT_TRUE((*client)->spawn([&](Thread& t) {
    ASSERT_TRUE(t.bind(kClientContext).ok());
    rpc::Client c(t);
    const rpc::Peer server{kServerIp, kServerContext};
    const std::vector<uint64_t> one = {1}, zero = {0};
    uint64_t id = 0;
    rpc::Completion x;
    ASSERT_EQ(c.call(server, one, 8, std::chrono::seconds(30), 'A', &id), ApiError::kOk);
    ASSERT_TRUE(c.next(&x, std::chrono::seconds(20)));
    by_user[x.user] = x;
    ASSERT_EQ(c.call(server, zero, 8, std::chrono::seconds(30), 'B', &id), ApiError::kOk);
    while (!restarted && !t.stopping()) t.idle();
    ASSERT_EQ(c.call(server, one, 8, std::chrono::seconds(30), 'C', &id), ApiError::kOk);
    while (by_user.size() < 3 && c.next(&x, std::chrono::seconds(20))) by_user[x.user] = x;
    ASSERT_EQ(c.call(server, one, 8, std::chrono::seconds(30), 'D', &id), ApiError::kOk);
    if (c.next(&x, std::chrono::seconds(20))) by_user[x.user] = x;
    done = true;
  }).ok());
  ASSERT_TRUE(testing::poll_until({server->get(), client->get()}, [&] { return stalled.load(); }));
  // B is the server's (acknowledged) once its handler runs; then it dies.
  for (int i = 0; i < 100; ++i) {
    (*server)->poll_once();  // its ACK out
    (*client)->poll_once();
  }
  EXPECT_EQ((*client)->nic_counters().tx_msgs_completed, 2u) << "A and B acknowledged";
  server->reset();
  const uint16_t again = testing::reopen_a(p);
  ASSERT_NE(again, 0xffff);
  auto server2 = Runtime::create(testing::host_config(again, kServerIp));
  ASSERT_TRUE(server2.ok()) << server2.status();
  ASSERT_TRUE((*server2)->spawn([](Thread& t) {
    (void)rpc::serve_calls(t, kServerContext, 0, [](rpc::ServerCall& c) { (void)c.reply(0); });
  }).ok());
  for (int i = 0; i < 10; ++i) (*server2)->poll_once();  // bound before C arrives
  restarted = true;
  const auto start = std::chrono::steady_clock::now();
  ASSERT_TRUE(testing::poll_until({server2->get(), client->get()}, [&] { return done; }));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10)) << "not by the deadline";
  ASSERT_EQ(by_user.size(), 4u);
  EXPECT_EQ(by_user['A'].status, rpc::CallStatus::kOk);
  EXPECT_EQ(by_user['B'].status, rpc::CallStatus::kPeerRestarted);
  EXPECT_EQ(by_user['C'].status, rpc::CallStatus::kRefused);
  EXPECT_EQ(by_user['D'].status, rpc::CallStatus::kOk);
  EXPECT_EQ((*client)->nic_counters().peer_restarts, 1u);
}

}  // namespace
}  // namespace nanopu
