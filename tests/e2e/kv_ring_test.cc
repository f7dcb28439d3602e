// The key-value service end to end through the real EAL: a server host
// (partitions on one or two emulated worker cores, either variant) and a
// client host on a net_ring pair; the client checks every reply against
// what it wrote (tools/loadgen/kv_client.h): every GET returns the last SET.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "tools/loadgen/kv_client.h"
#include "apps/mica/kv_service.h"
#include "nanopu/runtime.h"
#include "tests/support/eal_env.h"
#include "tests/support/test_hosts.h"

namespace nanopu {
namespace {

constexpr uint32_t kServerIp = 0x0a000001, kClientIp = 0x0a000002;
constexpr uint16_t kFirstContext = 20;

struct KvRun {
  apps::LoadGenResult r;
  apps::KvResult kv;
  std::vector<apps::KvServiceStats> server;
};

void run_kv(apps::KvVariant variant, uint32_t workers, bool jbsq, KvRun* out) {
  testing::PortPair p = testing::make_ring_pair();
  Config sc = testing::host_config(p.a, kServerIp);
  sc.shared_workers = workers;
  auto server = Runtime::create(sc);
  auto client = Runtime::create(testing::host_config(p.b, kClientIp));
  ASSERT_TRUE(server.ok()) << server.status();
  ASSERT_TRUE(client.ok()) << client.status();
  std::vector<std::unique_ptr<apps::MicaTable>> tables;
  out->server.resize(workers);
  for (uint32_t i = 0; i < workers; ++i) {
    tables.push_back(std::make_unique<apps::MicaTable>(apps::MicaTableParams{}));
    const auto ctx = static_cast<uint16_t>(jbsq ? kFirstContext : kFirstContext + i);
    apps::MicaTable* table = tables.back().get();
    apps::KvServiceStats* st = &out->server[i];
    ASSERT_TRUE((*server)->spawn([=](Thread& t) { (void)apps::serve_kv(t, ctx, 0, variant, table, st); },
                                 i).ok());
  }
  apps::LoadGenOptions o;
  o.server_ip = kServerIp;
  o.server_context = kFirstContext;
  o.context = 3;
  o.outstanding = 8;
  o.count = 20000;
  o.drain_timeout_s = 5;
  o.progress = false;
  apps::KvOptions kv;
  kv.keys = 10000;
  kv.partitions = workers;
  kv.jbsq = jbsq;
  bool done = false;
  ASSERT_TRUE((*client)->spawn([&](Thread& t) {
    apps::run_kv_client(t, o, kv, &out->r, &out->kv);
    done = true;
  }).ok());
  ASSERT_TRUE(testing::poll_until({server->get(), client->get()}, [&] { return done; },
                                  std::chrono::seconds(240)));
  EXPECT_EQ(out->r.error, "");
  EXPECT_EQ(out->r.sent, o.count);
  EXPECT_EQ(out->r.received, o.count);
  EXPECT_EQ(out->r.bad_replies, 0u);
  EXPECT_EQ(out->r.duplicates, 0u);
  EXPECT_EQ(out->r.lost + out->r.given_up, 0u);
  EXPECT_EQ(out->kv.gets + out->kv.sets, o.count);
  uint64_t served = 0;
  for (const apps::KvServiceStats& s : out->server) {
    served += s.gets + s.sets;
    EXPECT_EQ(s.bad_requests + s.dropped, 0u);
  }
  EXPECT_EQ(served, o.count + kv.keys);  // the measured requests and the preload's SETs
  if (::testing::Test::HasFailure()) {
    (*server)->print_stats(stderr);
    (*client)->print_stats(stderr);
  }
}

TEST(KvRingTest, RegisterFileOneCoreGetReturnsTheLastSet) {
  KvRun r;
  run_kv(apps::KvVariant::kRegisterFile, 1, false, &r);
  EXPECT_EQ(r.kv.get_hits, r.kv.gets);  // every key was preloaded
}

TEST(KvRingTest, NaiveOneCoreGetReturnsTheLastSet) {
  KvRun r;
  run_kv(apps::KvVariant::kNaive, 1, false, &r);
  EXPECT_EQ(r.kv.get_hits, r.kv.gets);
}

TEST(KvRingTest, TwoCoresPartitionedByKeyHash) {
  for (apps::KvVariant v : {apps::KvVariant::kRegisterFile, apps::KvVariant::kNaive}) {
    KvRun r;
    run_kv(v, 2, false, &r);
    EXPECT_EQ(r.kv.get_hits, r.kv.gets);
    // Both partitions served a share (keys spread by hash).
    for (const apps::KvServiceStats& s : r.server) EXPECT_GT(s.gets + s.sets, r.r.sent / 4);
  }
}

// JBSQ spreads any key over both cores, each with its own partition (as
// the paper measured it): replies are still well formed and of the right
// key, but a GET may miss.
TEST(KvRingTest, TwoCoresUnderJbsqAnswerEveryRequestWithTheRightKey) {
  KvRun r;
  run_kv(apps::KvVariant::kRegisterFile, 2, true, &r);
  EXPECT_LT(r.kv.get_hits, r.kv.gets) << "with two partitions and JBSQ some GETs must miss";
  for (const apps::KvServiceStats& s : r.server) EXPECT_GT(s.gets + s.sets, 0u);
}

}  // namespace
}  // namespace nanopu
