// Chain replication end to end through the real EAL: three replica hosts
// and a client host on the software switch (ring mode), each replica a
// nanopu-server-style thread (apps/chain), the client apps/chain's client.
// WRITEs go through the chain, get their versions from the head and are
// acknowledged by the tail; READs at the tail see the last acknowledged
// WRITE; every replica ends with the same state; a request to the wrong
// end is refused with the chain, which the client learns; a write passed
// on by a replica that is not the predecessor is dropped.
#include <gtest/gtest.h>
#include <rte_eth_ring.h>
#include <rte_ring.h>

#include <algorithm>
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

apps::ChainValue value_of(uint64_t key, uint64_t seq) {
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
    for (uint32_t ip : kReplicaIp) options_.chain.push_back(apps::chain_node(ip, kReplicaContext));
    for (uint32_t i = 0; i < 3; ++i) {
      // A static chain (no master): epoch 1, every replica's place known.
      replicas_[i].self = options_.chain[i];
      replicas_[i].config.epoch = 1;
      replicas_[i].config.members = options_.chain;
      ASSERT_TRUE(hosts_[i]->spawn([this, i](Thread& t) {
        (void)apps::serve_chain(t, kReplicaContext, 0, &replicas_[i]);
      }).ok());
    }
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
  apps::ChainReplicaState replicas_[3];
  apps::ChainClientOptions options_;
};

TEST_F(ChainRingTest, WritesGoThroughTheChainAndReadsAtTheTailSeeTheLastWrite) {
  constexpr uint64_t kKeys = 200;
  run([&](Thread& t) {
    apps::ChainClient c(t, options_);
    for (uint64_t round : {1, 2})
      for (uint64_t k = 0; k < kKeys; ++k) {
        absl::StatusOr<uint64_t> version = c.write({k, ~k}, value_of(k, round));
        ASSERT_TRUE(version.ok()) << version.status();
        EXPECT_EQ(*version, round) << "the head numbers each key's writes 1, 2, ...";
      }
    for (uint64_t k = 0; k < kKeys; ++k) {
      absl::StatusOr<std::optional<apps::ChainRead>> r = c.read({k, ~k});
      ASSERT_TRUE(r.ok()) << r.status();
      ASSERT_TRUE(r->has_value()) << "key " << k;
      EXPECT_EQ((*r)->version, 2u);
      EXPECT_EQ((*r)->value, value_of(k, 2));
    }
    absl::StatusOr<std::optional<apps::ChainRead>> miss = c.read({kKeys + 1, 0});
    ASSERT_TRUE(miss.ok()) << miss.status();
    EXPECT_FALSE(miss->has_value());
    EXPECT_EQ(c.stats().refused, 0u);
  });
  // Every replica stored every WRITE; the head and the middle forwarded
  // them, the tail acknowledged them and answered the READs.
  for (uint32_t i = 0; i < 3; ++i) {
    const apps::ChainReplicaStats& s = replicas_[i].stats;
    EXPECT_EQ(s.writes, 2 * kKeys) << "replica " << i;
    EXPECT_EQ(s.stale_writes, 0u);
    EXPECT_EQ(s.forwarded, i < 2 ? 2 * kKeys : 0u);
    EXPECT_EQ(s.acks, i == 2 ? 2 * kKeys : 0u);
    EXPECT_EQ(s.bad + s.dropped + s.refused + s.not_predecessor, 0u);
    ASSERT_EQ(replicas_[i].store.size(), kKeys);
    for (uint64_t k = 0; k < kKeys; ++k) {
      const apps::ChainStore::Entry* e = replicas_[i].store.read({k, ~k});
      ASSERT_NE(e, nullptr);
      EXPECT_EQ(e->version, 2u);
      EXPECT_EQ(e->value, value_of(k, 2));
    }
  }
  EXPECT_EQ(replicas_[2].stats.reads, kKeys + 1);
  EXPECT_EQ(replicas_[2].stats.read_misses, 1u);
}

TEST_F(ChainRingTest, ARequestToTheWrongEndIsRefusedWithTheChainWhichTheClientLearns) {
  // The client starts from the chain backwards: its WRITE goes to the tail,
  // its READ to the head.
  std::reverse(options_.chain.begin(), options_.chain.end());
  run([&](Thread& t) {
    apps::ChainClient c(t, options_);
    absl::StatusOr<uint64_t> version = c.write({1, 1}, value_of(1, 1));
    ASSERT_TRUE(version.ok()) << version.status();
    EXPECT_EQ(*version, 1u);
    EXPECT_EQ(c.stats().refused, 1u);
    EXPECT_EQ(c.config().epoch, 1u);
    EXPECT_EQ(c.config().members, replicas_[0].config.members) << "learned from the refusal";
    absl::StatusOr<std::optional<apps::ChainRead>> r = c.read({1, 1});
    ASSERT_TRUE(r.ok() && r->has_value());
    EXPECT_EQ((*r)->value, value_of(1, 1));
    EXPECT_EQ(c.stats().refused, 1u) << "the READ went to the tail it learned";
  });
  EXPECT_EQ(replicas_[2].stats.refused, 1u);
  EXPECT_EQ(replicas_[2].stats.writes, 2u) << "the refused WRITE, then the head's";
  EXPECT_EQ(replicas_[2].stats.acks, 1u);
}

TEST_F(ChainRingTest, AWritePassedOnByAnotherThanThePredecessorIsDropped) {
  run([&](Thread& t) {
    // A write as a replica passes it on (no kChainFromClient; version 9),
    // from the client's host to the tail: the head did not number it.
    const apps::ChainMeta m{apps::kChainWrite, kClientContext, kClientIp};
    ASSERT_EQ(t.write(AppHeader{kReplicaIp[2], kReplicaContext, apps::chain_len(true)}.word()), ApiError::kOk);
    for (uint64_t w : {uint64_t{0}, uint64_t{42}, m.word(), uint64_t{1}, uint64_t{9}, uint64_t{1}, uint64_t{1},
                       uint64_t{0}})
      (void)t.write(w);
    for (uint64_t v : value_of(1, 9)) (void)t.write(v);
    // Taken and dropped: no answer, nothing stored.
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (replicas_[2].stats.not_predecessor == 0 && std::chrono::steady_clock::now() < end)
      (void)t.wait_for(std::chrono::milliseconds(1));
    EXPECT_FALSE(t.msgs_ready());
    EXPECT_EQ(replicas_[2].store.size(), 0u);
    // A client's WRITE through the chain is the key's first.
    apps::ChainClient c(t, options_);
    absl::StatusOr<uint64_t> version = c.write({1, 1}, value_of(1, 1));
    ASSERT_TRUE(version.ok()) << version.status();
    EXPECT_EQ(*version, 1u);
    EXPECT_EQ(c.stats().late_replies, 0u) << "the dropped write was not acknowledged";
  });
  EXPECT_EQ(replicas_[2].stats.not_predecessor, 1u);
  EXPECT_EQ(replicas_[2].store.read({1, 1})->version, 1u);
}

TEST_F(ChainRingTest, AMalformedMessageIsAnsweredBadAndChangesNothing) {
  run([&](Thread& t) {
    // A READ as long as a WRITE: the flags and the length disagree.
    const apps::ChainMeta m{apps::kChainRead, kClientContext, kClientIp};
    ASSERT_EQ(t.write(AppHeader{kReplicaIp[0], kReplicaContext, apps::chain_len(true)}.word()), ApiError::kOk);
    for (uint64_t w : {uint64_t{0}, uint64_t{42}, m.word(), uint64_t{1}, uint64_t{0}, uint64_t{1}, uint64_t{1},
                       uint64_t{0}})
      (void)t.write(w);
    for (uint64_t v : value_of(1, 1)) (void)t.write(v);
    ASSERT_TRUE(t.wait());
    const AppHeader h = AppHeader::from_word(t.read());
    EXPECT_EQ(h.len, 24);
    (void)t.read();
    EXPECT_EQ(t.read(), 42u);
    EXPECT_NE(apps::ChainMeta::from_word(t.read()).flags & apps::kChainBad, 0);
    t.msg_done();
  });
  EXPECT_EQ(replicas_[0].stats.bad, 1u);
  EXPECT_EQ(replicas_[0].store.size(), 0u);
}

}  // namespace
}  // namespace nanopu
