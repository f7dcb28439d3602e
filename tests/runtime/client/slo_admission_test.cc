// SLO-aware admission, live (Config::context_slos; NEBULA (ISCA'20) §IV-B;
// docs/wire.md, "Rejected for load"): two in-process hosts on a net_ring
// pair, the server's context given an SLO that lets two messages wait for
// its one thread. The thread holds its first call until told; calls sent
// meanwhile past the bound complete at once with CallStatus::kRejected,
// naming the server, and the server's NIC counts each rejection. None is
// lost, none reported as anything else, and once the thread is free the
// server admits calls again. A context without an SLO keeps today's way:
// nothing is rejected, every call answered. Over Homa (no REJECT flag) the
// bound NACKs and the calls are retried, each answered.
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <vector>

#include "nanopu/history.h"
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
constexpr int kCalls = 12;

struct Outcome {
  int ok = 0, rejected = 0, other = 0;
  bool named_server = true;
  bool later_call_ok = false;
  bool done = false;
};

// The server's one thread answers each call with its first word; the call
// whose word is 0 is held until *release.
void serve(Thread& t, const bool* release) {
  (void)rpc::serve_calls(t, kServerContext, 0, [&](rpc::ServerCall& c) {
    uint64_t w = 0;
    (void)c.read_words(std::span<uint64_t>(&w, 1));
    while (w == 0 && !*release && !t.stopping()) t.idle();
    ASSERT_EQ(c.reply(8), ApiError::kOk);
    (void)c.write_words(std::span<const uint64_t>(&w, 1));
  });
}

// kCalls calls at once (the first held by the server), every completion
// sorted; then, once the held call is answered, one more that must be served.
void call_past_the_bound(Thread& t, bool* release, Outcome* o) {
  ASSERT_TRUE(t.bind(kClientContext).ok());
  rpc::Client client(t);
  for (uint64_t i = 0; i < kCalls; ++i) {
    const std::vector<uint64_t> req = {i};
    uint64_t id = 0;
    ASSERT_EQ(client.call({kServerIp, kServerContext}, req, 8, std::chrono::seconds(20), i, &id), ApiError::kOk);
  }
  for (int seen = 0; seen < kCalls; ++seen) {
    rpc::Completion c;
    ASSERT_TRUE(client.next(&c, std::chrono::seconds(20)));
    if (c.status == rpc::CallStatus::kOk) ++o->ok;
    else if (c.status == rpc::CallStatus::kRejected) ++o->rejected;
    else ++o->other;
    if (c.status == rpc::CallStatus::kRejected) {
      o->named_server &= c.to.ip == kServerIp && c.to.context == kServerContext;
      EXPECT_EQ(rpc::history_type_of(c.status), HistoryType::kFail);  // certainly not done
    }
    // The rejections come back while the first call is held: then free it.
    if (o->rejected > 0) *release = true;
  }
  const std::vector<uint64_t> again = {99};
  uint64_t id = 0;
  ASSERT_EQ(client.call({kServerIp, kServerContext}, again, 8, std::chrono::seconds(20), 99, &id), ApiError::kOk);
  rpc::Completion c;
  ASSERT_TRUE(client.next(&c, std::chrono::seconds(20)));
  o->later_call_ok = c.status == rpc::CallStatus::kOk && c.reply.size() == 1 && c.reply[0] == 99;
  // No rejected call was served after all (its late reply would show here).
  EXPECT_EQ(client.counters().late_replies, 0u);
  EXPECT_EQ(client.counters().stray_messages, 0u);
  o->done = true;
}

// The two hosts; the server's context SLOs as given, both on `transport`.
testing::RingHosts make_hosts(std::vector<Config::ContextSlo> slos, TransportProtocol transport = TransportProtocol::kNdp) {
  return testing::make_ring_hosts(kServerIp, kClientIp, [&](Config& c, bool server) {
    c.transport = transport;
    if (server) c.context_slos = slos;
  });
}

// The server thread and the client's calls on h, polled until the client
// is done; the held call is freed when the client sees a rejection, or
// when release_when(server's counters) says so (null: never). *o and
// *release outlive the hosts' threads: the test owns them.
void run_calls(testing::RingHosts& h, Outcome* o, bool* release,
               const std::function<bool(const NicCounters&)>& release_when) {
  ASSERT_TRUE(h.server->spawn([=](Thread& t) { serve(t, release); }).ok());
  ASSERT_TRUE(h.client->spawn([=](Thread& t) { call_past_the_bound(t, release, o); }).ok());
  ASSERT_TRUE(testing::poll_until({h.server.get(), h.client.get()},
                                  [&] {
                                    if (release_when && release_when(h.server->nic_counters())) *release = true;
                                    return o->done;
                                  },
                                  std::chrono::seconds(60)));
}

TEST(SloAdmissionTest, CallsPastTheSloQueueAreRejectedAndTheCallerHearsEachOne) {
  // A 10 us service and a 30 us SLO: two may wait for the one thread.
  testing::RingHosts h = make_hosts({{kServerContext, 10000, 30000}});
  ASSERT_TRUE(h.server && h.client);
  Outcome o;
  bool release = false;
  run_calls(h, &o, &release, nullptr);
  ASSERT_TRUE(o.done);
  // The held call and the one beside it are served; every later one finds
  // two ahead of it and is rejected (JBSQ's bound of 2 is the thread's FIFO).
  EXPECT_EQ(o.ok + o.rejected + o.other, kCalls);
  EXPECT_EQ(o.other, 0);
  EXPECT_GE(o.ok, 2);
  EXPECT_GE(o.rejected, kCalls - 4);
  EXPECT_TRUE(o.named_server);
  EXPECT_TRUE(o.later_call_ok);
  EXPECT_EQ(h.server->nic_counters().rx_rejected_slo, static_cast<uint64_t>(o.rejected));
  EXPECT_EQ(h.client->nic_counters().tx_msgs_rejected, static_cast<uint64_t>(o.rejected));
  EXPECT_EQ(h.client->nic_counters().tx_msgs_failed, static_cast<uint64_t>(o.rejected));
}

// Homa has no flag left for REJECT: its messages over the bound are NACKed
// as a full context's and retried, every call answered once there is room.
TEST(SloAdmissionTest, OverHomaTheBoundNacksAndEveryCallIsAnsweredLater) {
  testing::RingHosts h = make_hosts({{kServerContext, 10000, 30000}}, TransportProtocol::kHoma);
  ASSERT_TRUE(h.server && h.client);
  Outcome o;
  bool release = false;
  run_calls(h, &o, &release, [](const NicCounters& n) { return n.rx_nack_context_full > 0; });
  ASSERT_TRUE(o.done);
  EXPECT_EQ(o.ok, kCalls);
  EXPECT_EQ(o.rejected, 0);
  EXPECT_TRUE(o.later_call_ok);
  EXPECT_GT(h.server->nic_counters().rx_nack_context_full, 0u);
  EXPECT_EQ(h.server->nic_counters().rx_rejected_slo, 0u);
}

TEST(SloAdmissionTest, AContextWithoutAnSloQueuesEveryCallAsBefore) {
  testing::RingHosts h = make_hosts({{7, 10000, 30000}});  // another context's SLO
  ASSERT_TRUE(h.server && h.client);
  // Nothing is rejected: free the held call once every other is queued.
  Outcome o;
  bool release = false;
  run_calls(h, &o, &release, [](const NicCounters& n) { return n.rx_msgs_delivered + n.rx_msgs_queued >= kCalls; });
  ASSERT_TRUE(o.done);
  EXPECT_EQ(o.ok, kCalls);
  EXPECT_EQ(o.rejected, 0);
  EXPECT_EQ(h.server->nic_counters().rx_rejected_slo, 0u);
}

}  // namespace
}  // namespace nanopu
