// The server's on-core time rides back on its reply (docs/wire.md "Core
// time"; Thread::sender_core_ns), through the real EAL and net_ring: what
// the load generator's modelled column is built from. Bounds only in the
// direction a busy machine cannot break: a spin of S takes at least S of
// core time; time the thread spent switched out is not counted.
#include <gtest/gtest.h>

#include <chrono>

#include "nanopu/runtime.h"
#include "tests/support/eal_env.h"
#include "tests/support/test_hosts.h"

namespace nanopu {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

constexpr uint32_t kServerIp = 0x0a000001;
constexpr uint32_t kClientIp = 0x0a000002;
constexpr uint16_t kSlowContext = 5;   // priority 1: spins, can be preempted
constexpr uint16_t kUrgentContext = 6; // priority 0: preempts it
constexpr uint16_t kClientContext = 9;

testing::RingHosts make_hosts() { return testing::make_ring_hosts(kServerIp, kClientIp); }

// Reads one message, spins until `spin` has passed since it was taken
// (plain computation: no API call, so no safe point), replies with one word.
void serve_one(Thread& t, milliseconds spin, double* request_core_ns) {
  ASSERT_TRUE(t.bind(kSlowContext).ok());
  ASSERT_TRUE(t.wait());
  const AppHeader h = AppHeader::from_word(t.read());
  const auto begin = Clock::now();
  *request_core_ns = t.sender_core_ns();
  (void)t.read();
  while (Clock::now() - begin < spin) {
  }
  ASSERT_EQ(t.write(AppHeader{h.ip, h.context, 8}.word()), ApiError::kOk);
  ASSERT_EQ(t.write(1), ApiError::kOk);
  t.msg_done();
}

TEST(CoreTimeRingTest, TheServersCoreTimeOnARequestReachesTheClientOnTheReply) {
  testing::RingHosts h = make_hosts();
  ASSERT_TRUE(h.server && h.client);
  double request_core_ns = -1;
  ASSERT_TRUE(h.server->spawn([&](Thread& t) {
    serve_one(t, milliseconds(5), &request_core_ns);
  }).ok());
  double reply_core_ns = -1;
  Clock::duration rtt{};
  bool done = false;
  ASSERT_TRUE(h.client->spawn([&](Thread& t) {
    ASSERT_TRUE(t.bind(kClientContext).ok());
    const auto sent = Clock::now();
    ASSERT_EQ(t.write(AppHeader{kServerIp, kSlowContext, 8}.word()), ApiError::kOk);
    ASSERT_EQ(t.write(7), ApiError::kOk);
    ASSERT_TRUE(t.wait());
    reply_core_ns = t.sender_core_ns();
    rtt = Clock::now() - sent;
    (void)t.read();
    (void)t.read();
    t.msg_done();
    done = true;
  }).ok());
  ASSERT_TRUE(testing::poll_until({h.server.get(), h.client.get()}, [&] { return done; }));
  // The client served nothing before it sent: its request carries no core time.
  EXPECT_EQ(request_core_ns, 0);
  // The server spun 5 ms on the request before it replied; the reply cannot
  // carry more than the round trip the client saw. (1 % slack both ways:
  // the core time is counted in TSC cycles at the frequency DPDK estimates
  // at start-up, the spin and the round trip by the system clock.)
  EXPECT_GE(reply_core_ns, 0.99 * 5e6);
  EXPECT_LE(reply_core_ns, 1.01 * static_cast<double>(std::chrono::nanoseconds(rtt).count()));
}

TEST(CoreTimeRingTest, TimeSwitchedOutForABetterThreadIsNotCounted) {
  // One host that talks to itself (a net_ring port looped back), one
  // worker. The slow thread (priority 1), serving the client's request,
  // sends a message to the urgent thread (priority 0) and spins, with safe
  // points, until 20 ms have passed since it took the request. The urgent
  // message comes back through the NIC, preempts it and spins 300 ms, so
  // nearly all of the slow thread's wall time on the request is not its own.
  auto rt = Runtime::create(testing::host_config(testing::make_loop_port(), kServerIp));
  ASSERT_TRUE(rt.ok()) << rt.status();
  Clock::duration slow_wall{};
  bool urgent_ran = false, urgent_ran_first = false;
  ASSERT_TRUE((*rt)->spawn([&](Thread& t) {
    ASSERT_TRUE(t.bind(kSlowContext, 1).ok());
    ASSERT_TRUE(t.wait());
    const AppHeader h = AppHeader::from_word(t.read());
    const auto begin = Clock::now();
    (void)t.read();
    ASSERT_EQ(t.write(AppHeader{kServerIp, kUrgentContext, 8}.word()), ApiError::kOk);
    ASSERT_EQ(t.write(2), ApiError::kOk);
    // Until the urgent thread has run (10 s at most), not a fixed 20 ms: a
    // process that lost its CPU for 20 ms could end the spin before its
    // first safe point took the urgent message in.
    while (!urgent_ran && Clock::now() - begin < std::chrono::seconds(10)) t.preempt_point();
    urgent_ran_first = urgent_ran;
    ASSERT_EQ(t.write(AppHeader{h.ip, h.context, 8}.word()), ApiError::kOk);
    ASSERT_EQ(t.write(1), ApiError::kOk);
    slow_wall = Clock::now() - begin;
    t.msg_done();
  }).ok());
  ASSERT_TRUE((*rt)->spawn([&](Thread& t) {
    ASSERT_TRUE(t.bind(kUrgentContext, 0).ok());
    ASSERT_TRUE(t.wait());
    const auto begin = Clock::now();
    while (Clock::now() - begin < milliseconds(300)) t.preempt_point();
    urgent_ran = true;
    t.msg_done();
  }).ok());
  double slow_core_ns = -1;
  bool done = false;
  ASSERT_TRUE((*rt)->spawn([&](Thread& t) {
    ASSERT_TRUE(t.bind(kClientContext, 1).ok());
    ASSERT_EQ(t.write(AppHeader{kServerIp, kSlowContext, 8}.word()), ApiError::kOk);
    ASSERT_EQ(t.write(1), ApiError::kOk);
    ASSERT_TRUE(t.wait());
    slow_core_ns = t.sender_core_ns();
    (void)t.read();
    (void)t.read();
    t.msg_done();
    done = true;
  }).ok());
  ASSERT_TRUE(testing::poll_until({rt->get()}, [&] { return done; }));
  const double slow_wall_ns = static_cast<double>(std::chrono::nanoseconds(slow_wall).count());
  ASSERT_TRUE(urgent_ran_first) << "the urgent thread did not preempt the slow one";
  // The preemption happened: the slow thread's request took the urgent spin's time.
  ASSERT_GE(slow_wall_ns, 300e6) << "the urgent thread did not preempt the slow one";
  EXPECT_GE(slow_core_ns, 0.1);  // stamped
  EXPECT_LT(slow_core_ns, slow_wall_ns / 2) << "the urgent thread's 300 ms counted as the slow one's";
}

}  // namespace
}  // namespace nanopu
