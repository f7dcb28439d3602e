// Raft servers (apps/raft/raft_node.h) on a simulated network, a pure unit
// driven in simulated time: elections, replication, commitment, a killed
// leader, client retries; every acknowledged write is seen afterwards and
// no term has two leaders.
#include "apps/raft/raft_node.h"

#include <gtest/gtest.h>

#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace nanopu::apps {
namespace {

constexpr uint64_t kClient = uint64_t{7} << 32 | 0x0a000009;  // ctx 7, 10.0.0.9

class Cluster {
 public:
  explicit Cluster(uint32_t n, uint64_t seed = 1) : up_(n, true) {
    for (uint32_t i = 0; i < n; ++i) {
      RaftNodeConfig c;
      c.self = i;
      c.servers = n;
      c.seed = seed;
      nodes_.push_back(std::make_unique<RaftNode>(
          c, [this, i](const RaftNode::Out& o) { queue_.push_back({i, o}); },
          [this, i](const std::string& line) {
            const size_t at = line.find("is the leader of term ");
            if (at != std::string::npos) leaders_.push_back({std::stoull(line.substr(at + 22)), i});
          }));
      nodes_.back()->start(0);
    }
  }
  // Advances simulated time by ms in 1 ms steps, delivering every message
  // (each takes 0.1 ms) between live servers; client replies are kept.
  void run(double ms) {
    for (double end = now_ + ms; now_ < end; now_ += 1) {
      for (int rounds = 0; rounds < 100 && !queue_.empty(); ++rounds) {
        std::deque<std::pair<uint32_t, RaftNode::Out>> q;
        q.swap(queue_);
        for (auto& [from, o] : q) {
          if (!up_[from]) continue;
          if (o.to_client) replies_.push_back(o.words);
          else if (up_[o.server])
            nodes_[o.server]->receive(o.words.data(), static_cast<uint32_t>(o.words.size()),
                                      static_cast<uint16_t>(8 * o.words.size()), now_);
        }
      }
      for (uint32_t i = 0; i < nodes_.size(); ++i)
        if (up_[i]) nodes_[i]->tick(now_);
    }
  }
  void client_request(uint32_t to, uint64_t seq, RaftOp op, uint64_t key, uint64_t value,
                      uint64_t client = kClient, uint64_t session = 1) {
    std::vector<uint64_t> w = {raft_w0(0, RaftType::kClientRequest), seq * 1000, client, session, seq,
                               static_cast<uint64_t>(op), key, ~key};
    if (op == RaftOp::kPut)
      for (uint32_t i = 0; i < kRaftValueWords; ++i) w.push_back(value + i);
    if (up_[to]) nodes_[to]->receive(w.data(), static_cast<uint32_t>(w.size()), static_cast<uint16_t>(8 * w.size()), now_);
  }
  [[nodiscard]] std::optional<uint32_t> leader() const {
    std::optional<uint32_t> l;
    uint64_t best = 0;
    for (uint32_t i = 0; i < nodes_.size(); ++i)
      if (up_[i] && nodes_[i]->role() == RaftNode::Role::kLeader && nodes_[i]->term() >= best) {
        best = nodes_[i]->term();
        l = i;
      }
    return l;
  }
  void kill(uint32_t i) { up_[i] = false; }
  RaftNode& node(uint32_t i) { return *nodes_[i]; }
  std::vector<std::vector<uint64_t>>& replies() { return replies_; }
  // (term, server) of every "is the leader" line.
  const std::vector<std::pair<uint64_t, uint32_t>>& leaders() const { return leaders_; }

 private:
  std::vector<std::unique_ptr<RaftNode>> nodes_;
  std::vector<bool> up_;
  std::deque<std::pair<uint32_t, RaftNode::Out>> queue_;
  std::vector<std::vector<uint64_t>> replies_;
  std::vector<std::pair<uint64_t, uint32_t>> leaders_;
  double now_ = 0;
};

// A client that sends one request at a time and follows redirects, trying
// the next server on no answer: returns the reply's words.
std::vector<uint64_t> call(Cluster& c, uint32_t servers, uint64_t seq, RaftOp op, uint64_t key,
                           uint64_t value, uint32_t* hint, uint64_t session = 1) {
  for (int attempt = 0; attempt < 200; ++attempt) {
    c.replies().clear();
    c.client_request(*hint, seq, op, key, value, kClient, session);
    c.run(5);
    for (const auto& r : c.replies()) {
      if (r[2] != seq) continue;
      const auto status = static_cast<RaftStatus>(r[3]);
      if (status == RaftStatus::kOk || status == RaftStatus::kNotFound || status == RaftStatus::kSuperseded) return r;
      if (status == RaftStatus::kRedirect && r[4] != 0) *hint = static_cast<uint32_t>(r[4] - 1);
      else c.run(20);  // no leader yet
      goto next;
    }
    *hint = (*hint + 1) % servers;  // no answer: that server may be down
  next:;
  }
  ADD_FAILURE() << "request " << seq << " got no answer";
  return {};
}

void expect_one_leader_per_term(const Cluster& c) {
  std::map<uint64_t, std::set<uint32_t>> by_term;
  for (const auto& [term, server] : c.leaders()) by_term[term].insert(server);
  for (const auto& [term, servers] : by_term) EXPECT_EQ(servers.size(), 1u) << "term " << term;
}

TEST(RaftNodeTest, ElectsOneLeaderAndCommitsEveryWriteOnEveryServer) {
  Cluster c(3);
  c.run(1000);
  ASSERT_TRUE(c.leader().has_value());
  uint32_t hint = 0;
  for (uint64_t k = 0; k < 1000; ++k) ASSERT_FALSE(call(c, 3, k + 1, RaftOp::kPut, k % 100, k, &hint).empty());
  c.run(200);  // heartbeats carry the final commit index to the followers
  for (uint32_t i = 0; i < 3; ++i) {
    EXPECT_EQ(c.node(i).commit_index(), c.node(*c.leader()).last_index()) << i;
    EXPECT_EQ(c.node(i).stats().puts_applied, 1000u) << i;
    for (uint64_t k = 900; k < 1000; ++k) ASSERT_EQ((*c.node(i).value({k % 100, ~(k % 100)}))[0], k);
  }
  const auto r = call(c, 3, 2000, RaftOp::kGet, 5, 0, &hint);
  ASSERT_EQ(r.size(), kRaftClientReplyWords + kRaftValueWords);
  EXPECT_EQ(r[5], 905u);
  EXPECT_EQ(static_cast<RaftStatus>(call(c, 3, 2001, RaftOp::kGet, 12345, 0, &hint)[3]),
            RaftStatus::kNotFound);
  expect_one_leader_per_term(c);
}

TEST(RaftNodeTest, AKilledLeaderIsReplacedAndNoAcknowledgedWriteIsLost) {
  for (uint32_t servers : {3u, 5u}) {
    Cluster c(servers, servers);
    c.run(1000);
    uint32_t hint = 0;
    uint64_t seq = 0;
    for (uint64_t k = 0; k < 300; ++k) ASSERT_FALSE(call(c, servers, ++seq, RaftOp::kPut, k, k, &hint).empty());
    const uint32_t old = *c.leader();
    const uint64_t old_term = c.node(old).term();
    c.kill(old);
    if (servers == 5) c.kill((old + 1) % 5);  // a minority of two
    for (uint64_t k = 300; k < 600; ++k) ASSERT_FALSE(call(c, servers, ++seq, RaftOp::kPut, k, k, &hint).empty());
    ASSERT_TRUE(c.leader().has_value());
    EXPECT_NE(*c.leader(), old);
    EXPECT_GT(c.node(*c.leader()).term(), old_term);
    // Every acknowledged write, read back through the new leader.
    for (uint64_t k = 0; k < 600; ++k) {
      const auto r = call(c, servers, ++seq, RaftOp::kGet, k, 0, &hint);
      ASSERT_EQ(r.size(), kRaftClientReplyWords + kRaftValueWords) << servers << " servers, key " << k;
      EXPECT_EQ(r[5], k);
    }
    expect_one_leader_per_term(c);
  }
}

TEST(RaftNodeTest, AServerInANewerTermNamesNoLeaderUntilOneIsHeardFrom) {
  Cluster c(5, 3);
  c.run(1000);
  const uint32_t old = *c.leader();
  const uint64_t old_term = c.node(old).term();
  // The leader and two more down: the two left stand and vote for each
  // other in term after term, and none can win.
  c.kill(old);
  c.kill((old + 1) % 5);
  c.kill((old + 2) % 5);
  uint64_t newer = 0;
  for (int ms = 0; ms < 3000; ++ms) {
    c.run(1);
    for (uint32_t i : {(old + 3) % 5, (old + 4) % 5}) {
      if (c.node(i).term() == old_term) continue;  // no election yet: the old leader is all it knows
      ++newer;
      // A server that voted in a newer term must not send clients to the
      // dead leader (nor back there on every redirect).
      ASSERT_NE(c.node(i).leader(), static_cast<int>(old)) << "server " << i << " at ms " << ms;
    }
  }
  EXPECT_GT(newer, 0u);
  EXPECT_FALSE(c.leader().has_value());
}

TEST(RaftNodeTest, ARequestSentAgainIsAppliedOnceAndAnsweredAgain) {
  Cluster c(3);
  c.run(1000);
  uint32_t hint = *c.leader();
  ASSERT_FALSE(call(c, 3, 1, RaftOp::kPut, 1, 100, &hint).empty());
  ASSERT_FALSE(call(c, 3, 2, RaftOp::kPut, 1, 200, &hint).empty());
  // seq 2 again (its reply was lost, say): answered, not applied again.
  const auto r = call(c, 3, 2, RaftOp::kPut, 1, 200, &hint);
  ASSERT_FALSE(r.empty());
  EXPECT_EQ(static_cast<RaftStatus>(r[3]), RaftStatus::kOk);
  EXPECT_EQ(c.node(hint).stats().puts_applied, 2u);
  EXPECT_GE(c.node(hint).stats().resent_requests, 1u);
}

// A client's identity is its address and its session (a nonce it draws
// when it starts): a second or restarted client at the same address, its
// seqs from 1 again, is a new session and gets its own answers, never a
// cached one meant for the first; a request older than its session's
// newest applied one is answered "superseded", never silence.
TEST(RaftNodeTest, ASecondClientAtOneAddressIsItsOwnSessionAndAnOlderSeqIsSuperseded) {
  Cluster c(3);
  c.run(1000);
  uint32_t hint = *c.leader();
  ASSERT_FALSE(call(c, 3, 1, RaftOp::kPut, 1, 100, &hint, /*session=*/11).empty());
  ASSERT_FALSE(call(c, 3, 2, RaftOp::kPut, 2, 200, &hint, 11).empty());
  // Another incarnation at the same address: seq 1 again, a GET of key 1.
  const auto r = call(c, 3, 1, RaftOp::kGet, 1, 0, &hint, /*session=*/22);
  ASSERT_EQ(r.size(), kRaftClientReplyWords + kRaftValueWords) << "its own GET's answer: the value, not a PUT's ack";
  EXPECT_EQ(static_cast<RaftStatus>(r[3]), RaftStatus::kOk);
  EXPECT_EQ(r[5], 100u);
  EXPECT_EQ(c.node(hint).stats().puts_applied, 2u);
  EXPECT_EQ(c.node(hint).stats().gets_applied, 1u);
  // The first session's seq 1 again: older than its newest (2), answered so.
  const auto old = call(c, 3, 1, RaftOp::kPut, 1, 999, &hint, 11);
  ASSERT_FALSE(old.empty());
  EXPECT_EQ(static_cast<RaftStatus>(old[3]), RaftStatus::kSuperseded);
  EXPECT_EQ(c.node(hint).stats().puts_applied, 2u) << "not applied";
}

TEST(RaftNodeTest, MalformedMessagesAreCountedAndChangeNothing) {
  Cluster c(3);
  c.run(1000);
  RaftNode& n = c.node(0);
  const uint64_t term = n.term();
  const std::vector<std::vector<uint64_t>> bad = {
      {},                                                             // empty
      {raft_w0(term + 5, RaftType::kRequestVote), 1},                 // short
      {raft_w0(term + 5, RaftType::kRequestVote), 0, 0, 0},           // from itself
      {raft_w0(term + 5, RaftType::kRequestVote), 9, 0, 0},           // no such server
      {raft_w0(term, RaftType::kAppendEntries), 1, 0, 0, 0, 3},       // 3 entries announced, none there
      {raft_w0(term, RaftType::kAppendEntries), 1, 0, 0, 0, 99},      // more than a batch
      {raft_w0(0, static_cast<RaftType>(77)), 1, 2, 3},               // unknown type
  };
  for (const auto& w : bad) n.receive(w.data(), static_cast<uint32_t>(w.size()), static_cast<uint16_t>(8 * w.size()), 1000);
  EXPECT_EQ(n.stats().bad, bad.size());
  EXPECT_EQ(n.term(), term);
  // A client request with a bad op is answered kBad.
  c.replies().clear();
  const std::vector<uint64_t> w = {raft_w0(0, RaftType::kClientRequest), 1, kClient, 1, 1, 9, 0, 0};
  c.node(*c.leader()).receive(w.data(), 8, 64, 1000);
  c.run(2);
  ASSERT_EQ(c.replies().size(), 1u);
  EXPECT_EQ(static_cast<RaftStatus>(c.replies()[0][3]), RaftStatus::kBad);
}

}  // namespace
}  // namespace nanopu::apps
