// A reply names the run of the request it answers (MsgMeta::run, docs/wire.md
// "Sender incarnation"): a client killed with a request taken by the server
// and restarted on the same address and context sends its own first request
// before the server answers the dead one's. The server's NIC has by then
// heard the new run; the late reply must still name the old one, so the new
// client refuses it instead of taking it for the answer to its own request
// (seen as "duplicates" by the load generator in the af_packet churn test).
// A deferred reply (rpc) names its caller's run even after the thread took
// and answered a request of the caller's successor.
#include <gtest/gtest.h>

#include <atomic>
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
constexpr uint64_t kOldRequest = 0xA;

// One word to the server; then every word that comes back, into *got.
void client(Thread& t, uint64_t word, std::vector<uint64_t>* got) {
  ASSERT_TRUE(t.bind(kClientContext).ok());
  ASSERT_EQ(t.write_header(kServerIp, kServerContext, 8), ApiError::kOk);
  ASSERT_EQ(t.write(word), ApiError::kOk);
  while (t.wait()) {
    (void)t.read();  // the header
    got->push_back(t.read());
    t.msg_done();
  }
}

TEST(ReplyNamesRunTest, ALateReplyToARestartedClientIsRefusedByItsSuccessor) {
  testing::PortPair p = testing::make_ring_pair();
  Config sc = testing::host_config(p.b, kServerIp);
  sc.ack_hold_us = 0;
  auto server = Runtime::create(sc);
  auto old_client = Runtime::create(testing::host_config(p.a, kClientIp));
  ASSERT_TRUE(server.ok() && old_client.ok());
  std::atomic<bool> took_old{false}, answer_old{false};
  // Echoes each word; the old client's waits until the test says so.
  ASSERT_TRUE((*server)->spawn([&](Thread& t) {
    ASSERT_TRUE(t.bind(kServerContext).ok());
    while (t.wait()) {
      const AppHeader from = AppHeader::from_word(t.read());
      const uint64_t w = t.read();
      t.msg_done();
      if (w == kOldRequest) {
        took_old = true;
        while (!answer_old && !t.stopping()) t.idle();
      }
      if (t.write_header(from.ip, from.context, 8) == ApiError::kOk) (void)t.write(w);
    }
  }).ok());
  std::vector<uint64_t> old_got, new_got;
  ASSERT_TRUE((*old_client)->spawn([&](Thread& t) { client(t, kOldRequest, &old_got); }).ok());
  ASSERT_TRUE(testing::poll_until({server->get(), old_client->get()}, [&] { return took_old.load(); }));
  old_client->reset();  // killed, its request taken and unanswered

  const uint16_t again = testing::reopen_a(p);
  ASSERT_NE(again, 0xffff);
  auto new_client = Runtime::create(testing::host_config(again, kClientIp));
  ASSERT_TRUE(new_client.ok()) << new_client.status();
  ASSERT_TRUE((*new_client)->spawn([&](Thread& t) { client(t, 0xB, &new_got); }).ok());
  // The server's NIC hears the new run's request before the old one's
  // reply is written.
  ASSERT_TRUE(testing::poll_until({server->get(), new_client->get()},
                                  [&] { return (*server)->nic_counters().peer_restarts >= 1; }));
  answer_old = true;
  ASSERT_TRUE(testing::poll_until({server->get(), new_client->get()}, [&] {
    return !new_got.empty() && (*new_client)->nic_counters().rx_drop_stale_incarnation >= 1;
  })) << "replies the new client took: " << new_got.size();
  for (int i = 0; i < 200; ++i) {  // anything else still on its way
    (*server)->poll_once();
    (*new_client)->poll_once();
  }
  EXPECT_EQ(new_got, std::vector<uint64_t>{0xB}) << "the new run took its predecessor's reply";
  EXPECT_EQ((*server)->nic_counters().tx_msgs_failed, 1u) << "the old run's reply, refused";
  // That refusal names a run the server no longer names: one restart, and
  // the new run stays named (its messages are not open to any run).
  EXPECT_EQ((*server)->nic_counters().peer_restarts, 1u);
}

// The server defers the old client's call; the new client's call comes
// and is answered at once (the reply uses up the thread's memory of that
// peer's run), then the deferred reply goes: it names the old run, and the
// new client refuses it rather than hearing a reply to no call of its own.
TEST(ReplyNamesRunTest, ADeferredReplyNamesItsCallersRunAfterItsSuccessorsCall) {
  testing::PortPair p = testing::make_ring_pair();
  Config sc = testing::host_config(p.b, kServerIp);
  sc.ack_hold_us = 0;
  auto server = Runtime::create(sc);
  auto old_client = Runtime::create(testing::host_config(p.a, kClientIp));
  ASSERT_TRUE(server.ok() && old_client.ok());
  std::atomic<bool> deferred_old{false};
  rpc::DeferredReply pending;
  ASSERT_TRUE((*server)->spawn([&](Thread& t) {
    (void)rpc::serve_calls(t, kServerContext, 0, [&](rpc::ServerCall& c) {
      const uint64_t w = c.read();
      if (w == kOldRequest) {
        pending = c.defer();
        deferred_old = true;
        return;
      }
      if (c.reply(8) == ApiError::kOk) (void)c.write(w);
      if (pending.reply(8) == ApiError::kOk) (void)pending.write(kOldRequest);
    });
  }).ok());
  const rpc::Peer to{kServerIp, kServerContext};
  const auto call_one = [&](Thread& t, uint64_t word, rpc::ClientCounters* counters, std::vector<uint64_t>* got) {
    ASSERT_TRUE(t.bind(kClientContext).ok());
    rpc::Client c(t);
    const std::vector<uint64_t> words = {word};
    uint64_t id = 0;
    ASSERT_EQ(c.call(to, words, 8, std::chrono::seconds(30), 0, &id), ApiError::kOk);
    rpc::Completion x;
    while (!t.stopping()) {
      if (c.next(&x, std::chrono::milliseconds(1)) && x.status == rpc::CallStatus::kOk && !x.reply.empty())
        got->push_back(x.reply[0]);
      if (counters != nullptr) *counters = c.counters();
    }
  };
  std::vector<uint64_t> old_got, new_got;
  rpc::ClientCounters new_counters;
  ASSERT_TRUE((*old_client)->spawn([&](Thread& t) { call_one(t, kOldRequest, nullptr, &old_got); }).ok());
  ASSERT_TRUE(testing::poll_until({server->get(), old_client->get()}, [&] { return deferred_old.load(); }));
  old_client->reset();
  const uint16_t again = testing::reopen_a(p);
  ASSERT_NE(again, 0xffff);
  auto new_client = Runtime::create(testing::host_config(again, kClientIp));
  ASSERT_TRUE(new_client.ok()) << new_client.status();
  ASSERT_TRUE((*new_client)->spawn([&](Thread& t) { call_one(t, 0xB, &new_counters, &new_got); }).ok());
  ASSERT_TRUE(testing::poll_until({server->get(), new_client->get()}, [&] {
    return !new_got.empty() && (*new_client)->nic_counters().rx_drop_stale_incarnation >= 1;
  })) << "replies the new client took: " << new_got.size();
  for (int i = 0; i < 200; ++i) {
    (*server)->poll_once();
    (*new_client)->poll_once();
  }
  EXPECT_EQ(new_got, std::vector<uint64_t>{0xB});
  EXPECT_EQ(new_counters.late_replies + new_counters.stray_messages, 0u)
      << "the old call's deferred reply reached the new run";
  EXPECT_EQ((*server)->nic_counters().peer_restarts, 1u);
}

}  // namespace
}  // namespace nanopu
