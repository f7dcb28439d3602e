// Calls (nanopu/rpc.h) between two in-process hosts on a net_ring pair:
// replies matched to calls by id with many in flight, every reply checked;
// a deadline that passes completes the call and its late reply is dropped;
// a request the transport gives up completes with kNoAnswer, named by id;
// a server restarted with a call it took unanswered completes that call with
// kPeerRestarted, long before its deadline. Two Clients on one thread
// complete only their own calls; a server defers its reply until a call of
// its own to a backend is answered, or waits for that call inside its
// handler; a reply that cannot be sent whole reaches its caller as
// kServerFailed, never as an empty kOk; a deadline <= 0 is refused; every
// call can be recorded as a history.
#include <gtest/gtest.h>

#include <chrono>
#include <atomic>
#include <map>
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


// A backend on the client's host: each request's one word + 1000.
void backend(Thread& t, uint16_t context) {
  (void)rpc::serve_calls(t, context, 0, [](rpc::ServerCall& c) {
    const uint64_t x = c.read();
    ASSERT_EQ(c.reply(8), ApiError::kOk);
    (void)c.write(x + 1000);
  });
}

// `calls` calls of one word i (1..calls) to `to`, `window` in flight;
// every completion's status and reply into *got (by word sent).
void call_many(Thread& t, rpc::Peer to, uint64_t calls, size_t window,
               std::map<uint64_t, rpc::Completion>* got, std::map<uint64_t, uint64_t>* reply) {
  rpc::Client client(t);
  uint64_t next = 1;
  rpc::Completion c;
  while (got->size() < calls) {
    while (client.in_flight() < window && next <= calls) {
      const std::vector<uint64_t> w = {next};
      uint64_t id = 0;
      ASSERT_EQ(client.call(to, w, 8, std::chrono::seconds(20), next, &id), ApiError::kOk);
      ++next;
    }
    if (!client.next(&c, std::chrono::seconds(20))) break;
    (*got)[c.user] = c;
    if (c.status == rpc::CallStatus::kOk && !c.reply.empty()) (*reply)[c.user] = c.reply[0];
  }
  EXPECT_EQ(client.counters().stray_messages, 0u);
  EXPECT_EQ(client.counters().late_replies, 0u);
}

// Two Clients of one thread each call the same server, many calls in
// flight, their ids interleaved: each completes only its own calls, with
// its own replies (ids are the thread's message tags, unique on it).
TEST(RpcTest, TwoClientsOnOneThreadNeverTakeEachOthersReplies) {
  testing::RingHosts h = testing::make_ring_hosts(kServerIp, kClientIp);
  ASSERT_TRUE(h.server && h.client);
  ASSERT_TRUE(h.server->spawn([](Thread& t) { serve(t, 0); }).ok());
  uint64_t right[2] = {0, 0}, wrong = 0;
  bool done = false;
  ASSERT_TRUE(h.client->spawn([&](Thread& t) {
    ASSERT_TRUE(t.bind(kClientContext).ok());
    rpc::Client a(t), b(t);
    rpc::Client* clients[2] = {&a, &b};
    constexpr uint64_t kEach = 300;
    uint64_t sent[2] = {0, 0}, open = 0;
    std::map<uint64_t, uint64_t> asked[2];  // call id -> its word
    for (uint64_t k = 0; k < kEach; ++k) {
      for (int i = 0; i < 2; ++i) {  // both call, then both take: each sees the other's replies arrive
        const std::vector<uint64_t> w = {uint64_t(i + 1) * 100000 + k};
        uint64_t id = 0;
        ASSERT_EQ(clients[i]->call({kServerIp, kServerContext}, w, 8, std::chrono::seconds(20), i, &id),
                  ApiError::kOk);
        asked[i][id] = w[0];
        ++sent[i], ++open;
      }
      for (int i = 1; i >= 0; --i) {
        rpc::Completion c;
        while (clients[i]->in_flight() > 4 && clients[i]->next(&c, std::chrono::seconds(20))) {
          --open;
          const bool mine = c.user == uint64_t(i) && asked[i].count(c.id) == 1;
          (mine && c.status == rpc::CallStatus::kOk && c.reply.size() == 1 && c.reply[0] == asked[i][c.id] + 1
               ? right[i] : wrong) += 1;
        }
      }
    }
    for (int i = 0; i < 2; ++i) {
      rpc::Completion c;
      while (clients[i]->in_flight() > 0 && clients[i]->next(&c, std::chrono::seconds(20))) {
        const bool mine = c.user == uint64_t(i) && asked[i].count(c.id) == 1;
        (mine && c.status == rpc::CallStatus::kOk && c.reply.size() == 1 && c.reply[0] == asked[i][c.id] + 1
             ? right[i] : wrong) += 1;
      }
      EXPECT_EQ(clients[i]->counters().late_replies, 0u);
      EXPECT_EQ(clients[i]->counters().stray_messages, 0u);
    }
    done = true;
  }).ok());
  ASSERT_TRUE(testing::poll_until({h.server.get(), h.client.get()}, [&] { return done; }, std::chrono::seconds(60)));
  EXPECT_EQ(right[0], 300u);
  EXPECT_EQ(right[1], 300u);
  EXPECT_EQ(wrong, 0u);
}

// A primary that defers each reply until its backend has answered a call
// of its own, made from the thread that serves: the completion handler
// answers the deferred reply. Many client calls in flight; every reply is
// the backend's answer + 1, and says it came after other work.
TEST(RpcTest, ADeferredReplyIsAnsweredOnceTheServersOwnCallToABackendCompletes) {
  testing::RingHosts h = testing::make_ring_hosts(kServerIp, kClientIp);
  ASSERT_TRUE(h.server && h.client);
  constexpr uint16_t kBackend = 6;
  ASSERT_TRUE(h.client->spawn([](Thread& t) { backend(t, kBackend); }).ok());
  ASSERT_TRUE(h.server->spawn([](Thread& t) {
    ASSERT_TRUE(t.bind(kServerContext).ok());
    rpc::Client to_backend(t);
    std::map<uint64_t, rpc::DeferredReply> waiting;  // by the backend call's id
    rpc::serve_calls(
        t,
        [&](rpc::ServerCall& c) {
          const std::vector<uint64_t> w = {c.read()};
          rpc::DeferredReply later = c.defer();
          uint64_t id = 0;
          ASSERT_EQ(to_backend.call({kClientIp, kBackend}, w, 8, std::chrono::seconds(20), 0, &id), ApiError::kOk);
          waiting.emplace(id, std::move(later));
        },
        [&](rpc::Client& from, rpc::Completion& done) {
          ASSERT_EQ(&from, &to_backend);
          auto it = waiting.find(done.id);
          ASSERT_NE(it, waiting.end());
          ASSERT_EQ(done.status, rpc::CallStatus::kOk);
          ASSERT_EQ(it->second.reply(8), ApiError::kOk);
          (void)it->second.write(done.reply[0] + 1);
          waiting.erase(it);
        });
  }).ok());
  std::map<uint64_t, rpc::Completion> got;
  std::map<uint64_t, uint64_t> reply;
  bool done = false;
  ASSERT_TRUE(h.client->spawn([&](Thread& t) {
    ASSERT_TRUE(t.bind(kClientContext).ok());
    call_many(t, {kServerIp, kServerContext}, 500, 16, &got, &reply);
    done = true;
  }).ok());
  ASSERT_TRUE(testing::poll_until({h.server.get(), h.client.get()}, [&] { return done; }, std::chrono::seconds(60)));
  ASSERT_EQ(got.size(), 500u);
  for (const auto& [x, c] : got) {
    EXPECT_EQ(c.status, rpc::CallStatus::kOk) << x;
    EXPECT_EQ(reply[x], x + 1001) << x;
    EXPECT_TRUE(c.after_other_work) << x;
  }
}

// A handler that waits for its backend call inside the handler
// (Client::next): requests that arrive meanwhile are kept and served
// after it, none swallowed; replies to them say they came after other work.
TEST(RpcTest, AHandlerWaitingOnItsOwnCallLosesNoRequestThatArrivesMeanwhile) {
  testing::RingHosts h = testing::make_ring_hosts(kServerIp, kClientIp);
  ASSERT_TRUE(h.server && h.client);
  constexpr uint16_t kBackend = 6;
  ASSERT_TRUE(h.client->spawn([](Thread& t) { backend(t, kBackend); }).ok());
  ASSERT_TRUE(h.server->spawn([](Thread& t) {
    ASSERT_TRUE(t.bind(kServerContext).ok());
    rpc::Client to_backend(t);
    rpc::serve_calls(
        t,
        [&](rpc::ServerCall& c) {
          const std::vector<uint64_t> w = {c.read()};
          uint64_t id = 0;
          ASSERT_EQ(to_backend.call({kClientIp, kBackend}, w, 8, std::chrono::seconds(20), 0, &id), ApiError::kOk);
          rpc::Completion done;
          ASSERT_TRUE(to_backend.next(&done, std::chrono::seconds(20)));
          ASSERT_EQ(done.status, rpc::CallStatus::kOk);
          ASSERT_EQ(c.reply(8), ApiError::kOk);
          (void)c.write(done.reply[0] + 1);
        },
        nullptr);
  }).ok());
  std::map<uint64_t, rpc::Completion> got;
  std::map<uint64_t, uint64_t> reply;
  bool done = false;
  ASSERT_TRUE(h.client->spawn([&](Thread& t) {
    ASSERT_TRUE(t.bind(kClientContext).ok());
    call_many(t, {kServerIp, kServerContext}, 300, 8, &got, &reply);
    done = true;
  }).ok());
  ASSERT_TRUE(testing::poll_until({h.server.get(), h.client.get()}, [&] { return done; }, std::chrono::seconds(60)));
  ASSERT_EQ(got.size(), 300u);
  uint64_t after = 0;
  for (const auto& [x, c] : got) {
    EXPECT_EQ(c.status, rpc::CallStatus::kOk) << x;
    EXPECT_EQ(reply[x], x + 1001) << x;
    after += c.after_other_work;
  }
  EXPECT_GT(after, 0u) << "with 8 in flight, some requests came while a handler waited";
}

// A reply the server cannot send whole reaches its caller as
// kServerFailed naming why — a reply() too long, a reply left short, a
// deferred reply dropped, a handler's fail() — never as an empty kOk.
TEST(RpcTest, AReplyThatCannotBeSentWholeReachesItsCallerAsAFailure) {
  testing::RingHosts h = testing::make_ring_hosts(kServerIp, kClientIp);
  ASSERT_TRUE(h.server && h.client);
  ApiError too_long = ApiError::kOk;
  ASSERT_TRUE(h.server->spawn([&](Thread& t) {
    (void)rpc::serve_calls(t, kServerContext, 0, [&](rpc::ServerCall& c) {
      switch (c.read()) {
        case 1: too_long = c.reply(rpc::kMaxCallBytes + 1); break;
        case 2: (void)c.reply(24), (void)c.write(7); break;  // 1 word of 3
        case 3: { rpc::DeferredReply dropped = c.defer(); } break;
        case 4: (void)c.fail(); break;
        default: (void)c.reply(8), (void)c.write(99); break;
      }
    });
  }).ok());
  std::map<uint64_t, rpc::Completion> got;
  std::vector<uint64_t> fifth;  // the good call's reply (a completion's span lasts until the next call)
  bool done = false;
  ASSERT_TRUE(h.client->spawn([&](Thread& t) {
    ASSERT_TRUE(t.bind(kClientContext).ok());
    rpc::Client client(t);
    for (uint64_t x = 1; x <= 5; ++x) {
      const std::vector<uint64_t> w = {x};
      uint64_t id = 0;
      ASSERT_EQ(client.call({kServerIp, kServerContext}, w, 8, std::chrono::seconds(20), x, &id), ApiError::kOk);
    }
    rpc::Completion c;
    while (got.size() < 5 && client.next(&c, std::chrono::seconds(20))) {
      got[c.user] = c;
      if (c.user == 5) fifth.assign(c.reply.begin(), c.reply.end());
    }
    done = true;
  }).ok());
  ASSERT_TRUE(testing::poll_until({h.server.get(), h.client.get()}, [&] { return done; }, std::chrono::seconds(60)));
  ASSERT_EQ(got.size(), 5u);
  EXPECT_EQ(too_long, ApiError::kTooLong);
  const rpc::ServerFailure want[] = {rpc::ServerFailure::kReplyTooLong, rpc::ServerFailure::kIncomplete,
                                     rpc::ServerFailure::kAbandoned, rpc::ServerFailure::kFailed};
  for (uint64_t x = 1; x <= 4; ++x) {
    EXPECT_EQ(got[x].status, rpc::CallStatus::kServerFailed) << x;
    EXPECT_EQ(got[x].server_failure, want[x - 1]) << x;
    EXPECT_TRUE(got[x].reply.empty()) << x;
  }
  EXPECT_EQ(got[5].status, rpc::CallStatus::kOk);
  EXPECT_EQ(got[5].reply_bytes, 8u);
  EXPECT_EQ(fifth, (std::vector<uint64_t>{99}));
  EXPECT_EQ(rpc::history_type_of(rpc::CallStatus::kServerFailed), HistoryType::kInfo);
}

// A deadline of 0 (or less) is refused before anything is sent: the call
// has no id, nothing is in flight, the misuse is counted; the server saw
// only the one good call.
TEST(RpcTest, ADeadlineOfZeroIsRefusedAndNothingIsSent) {
  testing::RingHosts h = testing::make_ring_hosts(kServerIp, kClientIp);
  ASSERT_TRUE(h.server && h.client);
  uint64_t served = 0;
  ASSERT_TRUE(h.server->spawn([&](Thread& t) {
    (void)rpc::serve_calls(t, kServerContext, 0, [&](rpc::ServerCall& c) {
      ++served;
      (void)c.reply(0);
    });
  }).ok());
  ApiError zero = ApiError::kOk, negative = ApiError::kOk;
  size_t in_flight_after = 1;
  rpc::ClientCounters n;
  bool done = false;
  ASSERT_TRUE(h.client->spawn([&](Thread& t) {
    ASSERT_TRUE(t.bind(kClientContext).ok());
    rpc::Client client(t);
    const std::vector<uint64_t> w = {1};
    uint64_t id = 12345;
    zero = client.call({kServerIp, kServerContext}, w, 8, std::chrono::microseconds(0), 0, &id);
    negative = client.call({kServerIp, kServerContext}, w, 8, std::chrono::microseconds(-5), 0, &id);
    in_flight_after = client.in_flight();
    EXPECT_EQ(id, 12345u) << "no id for a refused call";
    ASSERT_EQ(client.call({kServerIp, kServerContext}, w, 8, std::chrono::seconds(20), 0, &id), ApiError::kOk);
    rpc::Completion c;
    ASSERT_TRUE(client.next(&c, std::chrono::seconds(20)));
    EXPECT_EQ(c.status, rpc::CallStatus::kOk);
    n = client.counters();
    done = true;
  }).ok());
  ASSERT_TRUE(testing::poll_until({h.server.get(), h.client.get()}, [&] { return done; }, std::chrono::seconds(30)));
  EXPECT_EQ(zero, ApiError::kBadArgument);
  EXPECT_EQ(negative, ApiError::kBadArgument);
  EXPECT_EQ(in_flight_after, 0u);
  EXPECT_EQ(n.misuse, 2u);
  EXPECT_EQ(n.calls, 1u);
  EXPECT_EQ(served, 1u);
}

// Calls recorded into a history: an invoke at each send, an ok with the
// recorder's value at each reply; a call past its deadline ends as info and
// its process is never used again; the lines parse back to the events.
TEST(RpcTest, RecordedCallsMakeAHistoryOfInvokesAndOutcomes) {
  testing::RingHosts h = testing::make_ring_hosts(kServerIp, kClientIp);
  ASSERT_TRUE(h.server && h.client);
  bool release = false;
  ASSERT_TRUE(h.server->spawn([&](Thread& t) { serve(t, 10000, &release); }).ok());
  History history;
  bool done = false;
  ASSERT_TRUE(h.client->spawn([&](Thread& t) {
    ASSERT_TRUE(t.bind(kClientContext).ok());
    rpc::Client client(t);
    rpc::CallRecorder r;
    r.invoke = [](std::span<const uint64_t> w, uint32_t) {
      return HistoryOp{"read", static_cast<int64_t>(w[0]), HistoryValue::null()};
    };
    r.ok = [](const HistoryOp&, std::span<const uint64_t> reply, uint32_t) {
      return HistoryOutcome{HistoryType::kOk, HistoryValue::of(static_cast<int64_t>(reply[0]))};
    };
    client.record(&history, r);
    uint64_t id = 0;
    rpc::Completion c;
    for (uint64_t x : {5, 6}) {  // one at a time: one process
      const std::vector<uint64_t> w = {x};
      ASSERT_EQ(client.call({kServerIp, kServerContext}, w, 8, std::chrono::seconds(20), x, &id), ApiError::kOk);
      ASSERT_TRUE(client.next(&c, std::chrono::seconds(20)));
    }
    const std::vector<uint64_t> slow = {0}, after = {7};
    ASSERT_EQ(client.call({kServerIp, kServerContext}, slow, 8, std::chrono::milliseconds(5), 0, &id), ApiError::kOk);
    ASSERT_TRUE(client.next(&c, std::chrono::seconds(20)));
    EXPECT_EQ(c.status, rpc::CallStatus::kDeadlineExceeded);
    release = true;
    ASSERT_EQ(client.call({kServerIp, kServerContext}, after, 8, std::chrono::seconds(20), 7, &id), ApiError::kOk);
    while (client.next(&c, std::chrono::seconds(20)) && c.user != 7) {
    }
    done = true;
  }).ok());
  ASSERT_TRUE(testing::poll_until({h.server.get(), h.client.get()}, [&] { return done; }, std::chrono::seconds(30)));
  const std::vector<HistoryEvent> e = history.events();
  ASSERT_EQ(e.size(), 8u);
  const HistoryType want[] = {HistoryType::kInvoke, HistoryType::kOk, HistoryType::kInvoke, HistoryType::kOk,
                              HistoryType::kInvoke, HistoryType::kInfo, HistoryType::kInvoke, HistoryType::kOk};
  for (size_t i = 0; i < e.size(); ++i) {
    EXPECT_EQ(e[i].index, i);
    EXPECT_EQ(e[i].type, want[i]) << i;
    EXPECT_EQ(e[i].op.f, "read");
    if (i > 0) {
      EXPECT_GE(e[i].time_ns, e[i - 1].time_ns);
    }
    const absl::StatusOr<HistoryEvent> back = parse_history_line(history_json(e[i]));
    ASSERT_TRUE(back.ok()) << back.status() << ": " << history_json(e[i]);
    EXPECT_EQ(*back, e[i]);
  }
  EXPECT_EQ(e[1].op.value, HistoryValue::of(6)) << "the server's reply: the word + 1";
  EXPECT_EQ(e[3].op.value, HistoryValue::of(7));
  EXPECT_EQ(e[0].process, e[2].process) << "one call at a time: one process";
  EXPECT_EQ(e[4].process, e[0].process);
  EXPECT_EQ(e[5].process, e[4].process);
  EXPECT_NE(e[6].process, e[4].process) << "a process whose call ended in info never invokes again";
}

}  // namespace
}  // namespace nanopu
