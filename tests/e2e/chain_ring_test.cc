// Chain replication end to end through the real EAL: three replica hosts
// and a client host on the software switch (ring mode), each replica a
// nanopu-server-style thread (apps/chain), the client apps/chain's client.
// WRITEs go through the chain and are acknowledged by the tail; READs at
// the tail see the last acknowledged WRITE; every replica ends with the
// same state; a WRITE sent again changes nothing.
#include <gtest/gtest.h>
#include <rte_eth_ring.h>
#include <rte_ring.h>

#include <chrono>
#include <functional>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "apps/chain/chain_client.h"
#include "apps/chain/chain_replica.h"
#include "tools/switch/software_switch.h"
#include "nanopu/runtime.h"
#include "tests/support/eal_env.h"

namespace nanopu {
namespace {

constexpr uint32_t kReplicaIp[3] = {0x0a000001, 0x0a000002, 0x0a000003};
constexpr uint32_t kClientIp = 0x0a000009;
constexpr uint16_t kReplicaContext = 5;
constexpr uint8_t kClientContext = 7;

apps::ChainValue value_of(uint64_t key, uint8_t seq) {
  apps::ChainValue v;
  for (uint32_t i = 0; i < v.size(); ++i) v[i] = key * 1000003 + seq * 131 + i;
  return v;
}

// Three replicas and a client on one switch; run(client_body) drives every
// host and the switch until the client's body returns.
class ChainRingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    static int n = 0;
    std::vector<apps::SwitchPort> ports;
    for (uint32_t ip : {kReplicaIp[0], kReplicaIp[1], kReplicaIp[2], kClientIp}) {
      rte_ring* to = rte_ring_create(absl::StrCat("ch_t", n).c_str(), 4096, SOCKET_ID_ANY, 0);
      rte_ring* from = rte_ring_create(absl::StrCat("ch_f", n).c_str(), 4096, SOCKET_ID_ANY, 0);
      const int port = rte_eth_from_rings(absl::StrCat("ch", n++).c_str(), &to, 1, &from, 1, SOCKET_ID_ANY);
      ASSERT_GE(port, 0);
      ports.push_back({0, from, to});
      Config c = testing::host_config(static_cast<uint16_t>(port), ip);
      c.mbufs = 4095;
      auto rt = Runtime::create(c);
      ASSERT_TRUE(rt.ok()) << rt.status();
      hosts_.push_back(std::move(*rt));
    }
    pool_ = rte_pktmbuf_pool_create(absl::StrCat("ch_pool", n).c_str(), 4095, 0, 0,
                                    RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
    ASSERT_NE(pool_, nullptr);
    sw_ = std::make_unique<apps::SoftwareSwitch>(apps::SwitchParams{}, ports, pool_);
    for (uint32_t i = 0; i < 4; ++i) sw_->add_route(i < 3 ? kReplicaIp[i] : kClientIp, i);
    for (uint32_t i = 0; i < 3; ++i)
      ASSERT_TRUE(hosts_[i]->spawn([this, i](Thread& t) {
        (void)apps::serve_chain(t, kReplicaContext, 0, &stores_[i], &stats_[i]);
      }).ok());
    for (uint32_t ip : kReplicaIp) options_.chain.push_back(apps::chain_node(ip, kReplicaContext));
    options_.ip = kClientIp;
    options_.context = kClientContext;
  }
  void run(const std::function<void(Thread&)>& body) {
    bool done = false;
    ASSERT_TRUE(hosts_[3]->spawn([&](Thread& t) {
      ASSERT_TRUE(t.bind(kClientContext).ok());
      body(t);
      done = true;
    }).ok());
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(240);
    while (!done && std::chrono::steady_clock::now() < end) {
      for (auto& h : hosts_) h->poll_once();
      sw_->poll();
    }
    ASSERT_TRUE(done) << "the client did not finish in 240 s";
  }

  std::vector<std::unique_ptr<Runtime>> hosts_;
  rte_mempool* pool_ = nullptr;
  std::unique_ptr<apps::SoftwareSwitch> sw_;
  apps::ChainStore stores_[3];
  apps::ChainReplicaStats stats_[3];
  apps::ChainClientOptions options_;
};

TEST_F(ChainRingTest, WritesGoThroughTheChainAndReadsAtTheTailSeeTheLastWrite) {
  constexpr uint64_t kKeys = 200;
  run([&](Thread& t) {
    apps::ChainClient c(t, options_);
    for (uint8_t seq : {1, 2})
      for (uint64_t k = 0; k < kKeys; ++k) ASSERT_TRUE(c.write({k, ~k}, seq, value_of(k, seq)).ok());
    for (uint64_t k = 0; k < kKeys; ++k) {
      absl::StatusOr<std::optional<apps::ChainRead>> r = c.read({k, ~k});
      ASSERT_TRUE(r.ok()) << r.status();
      ASSERT_TRUE(r->has_value()) << "key " << k;
      EXPECT_EQ((*r)->seq, 2);
      EXPECT_EQ((*r)->value, value_of(k, 2));
    }
    absl::StatusOr<std::optional<apps::ChainRead>> miss = c.read({kKeys + 1, 0});
    ASSERT_TRUE(miss.ok()) << miss.status();
    EXPECT_FALSE(miss->has_value());
  });
  // Every replica stored every WRITE; the head and the middle forwarded
  // them, the tail acknowledged them and answered the READs.
  for (uint32_t i = 0; i < 3; ++i) {
    EXPECT_EQ(stats_[i].writes, 2 * kKeys) << "replica " << i;
    EXPECT_EQ(stats_[i].stale_writes, 0u);
    EXPECT_EQ(stats_[i].forwarded, i < 2 ? 2 * kKeys : 0u);
    EXPECT_EQ(stats_[i].acks, i == 2 ? 2 * kKeys : 0u);
    EXPECT_EQ(stats_[i].bad + stats_[i].dropped, 0u);
    ASSERT_EQ(stores_[i].size(), kKeys);
    for (uint64_t k = 0; k < kKeys; ++k) {
      const apps::ChainStore::Entry* e = stores_[i].read({k, ~k});
      ASSERT_NE(e, nullptr);
      EXPECT_EQ(e->seq, 2);
      EXPECT_EQ(e->value, value_of(k, 2));
    }
  }
  EXPECT_EQ(stats_[2].reads, kKeys + 1);
  EXPECT_EQ(stats_[2].read_misses, 1u);
}

TEST_F(ChainRingTest, AWriteSentAgainAfterANewerOneChangesNothing) {
  run([&](Thread& t) {
    apps::ChainClient c(t, options_);
    ASSERT_TRUE(c.write({1, 1}, 1, value_of(1, 1)).ok());
    ASSERT_TRUE(c.write({1, 1}, 2, value_of(1, 2)).ok());
    // The first WRITE again (a client's retry that overtook nothing): still
    // acknowledged, applied nowhere.
    ASSERT_TRUE(c.write({1, 1}, 1, value_of(1, 1)).ok());
    // Sequence numbers wrap: 255 -> 0 -> 1 keep counting as newer.
    absl::StatusOr<std::optional<apps::ChainRead>> r = c.read({1, 1});
    ASSERT_TRUE(r.ok() && r->has_value());
    EXPECT_EQ((*r)->seq, 2);
    EXPECT_EQ((*r)->value, value_of(1, 2));
    for (uint8_t seq : {100, 200, 0, 50}) ASSERT_TRUE(c.write({2, 2}, seq, value_of(2, seq)).ok());
    r = c.read({2, 2});
    ASSERT_TRUE(r.ok() && r->has_value());
    EXPECT_EQ((*r)->seq, 50);
    EXPECT_EQ((*r)->value, value_of(2, 50));
  });
  for (uint32_t i = 0; i < 3; ++i) {
    EXPECT_EQ(stats_[i].stale_writes, 1u) << "replica " << i;
    EXPECT_EQ(stores_[i].read({1, 1})->value, value_of(1, 2));
  }
}

TEST_F(ChainRingTest, AMalformedMessageIsAnsweredBadAndChangesNothing) {
  run([&](Thread& t) {
    // A READ naming a further node (READs go to the tail): refused.
    const apps::ChainMeta m{apps::kChainRead, 0, 1, kClientContext, kClientIp};
    ASSERT_EQ(t.write(AppHeader{kReplicaIp[0], kReplicaContext, apps::chain_len(1, false)}.word()),
              ApiError::kOk);
    for (uint64_t w : {uint64_t{0}, uint64_t{42}, m.word(), uint64_t{0}, uint64_t{1}, uint64_t{1},
                       uint64_t{0}})
      (void)t.write(w);
    ASSERT_TRUE(t.wait());
    const AppHeader h = AppHeader::from_word(t.read());
    EXPECT_EQ(h.len, 24);
    (void)t.read();
    EXPECT_EQ(t.read(), 42u);
    EXPECT_NE(apps::ChainMeta::from_word(t.read()).flags & apps::kChainBad, 0);
    t.msg_done();
  });
  EXPECT_EQ(stats_[0].bad, 1u);
  EXPECT_EQ(stores_[0].size(), 0u);
}

}  // namespace
}  // namespace nanopu
