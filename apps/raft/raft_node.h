// One Raft server (Ongaro & Ousterhout, "In Search of an Understandable
// Consensus Algorithm", §5): leader election with randomized timeouts, log
// replication, commitment by majority in the leader's term, a key-value
// state machine (16-byte keys, 64-byte values) with one reply per client
// request even when a client sends it again. Pure logic: messages go out
// through a callback and time comes in as an argument, so tests can drive a
// cluster deterministically; apps/raft/raft_service.h runs it on a thread.
//
// Term, vote and log live in memory, and also in a RaftStorage when one is
// given (--raft_state): a server restarted with it keeps its promises and
// may rejoin under the same index. Without one a restarted server has lost
// its vote and its log and must not rejoin; the cluster survives the loss
// of a minority of servers.
#pragma once

#include <cstdint>
#include <tuple>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "apps/raft/raft_entry.h"
#include "apps/raft/raft_protocol.h"
#include "apps/raft/raft_storage.h"
#include "nanopu/seeded_draw.h"

namespace nanopu::apps {

struct RaftNodeConfig {
  uint32_t self = 0;
  uint32_t servers = 3;
  double election_min_ms = 150;
  double election_max_ms = 300;
  double heartbeat_ms = 20;
  uint64_t seed = 1;
};

struct RaftStats {
  uint64_t elections = 0, terms_led = 0, client_requests = 0, redirects = 0, committed = 0,
           puts_applied = 0, gets_applied = 0, resent_requests = 0, bad = 0;
};

class RaftNode {
 public:
  enum class Role : uint8_t { kFollower, kCandidate, kLeader };
  // A message to send: to server `server`, or (to_client) to `client`.
  struct Out {
    bool to_client = false;
    uint32_t server = 0;
    uint64_t client = 0;
    std::vector<uint64_t> words;  // the payload, after the AppHeader
  };
  using Send = std::function<void(const Out&)>;
  using Log = std::function<void(const std::string&)>;

  // With `storage` (may be null: volatile), the node starts from what it
  // recovered and writes every change of term, vote and log to it before
  // sending anything that depends on the change.
  RaftNode(const RaftNodeConfig& config, Send send, Log log, RaftStorage* storage = nullptr);

  void start(double now_ms);
  // Timers: an election when no leader was heard from in time; heartbeats.
  void tick(double now_ms);
  // One message's payload (len bytes in w[0..n)).
  void receive(const uint64_t* w, uint32_t n, uint16_t len, double now_ms);

  [[nodiscard]] Role role() const { return role_; }
  [[nodiscard]] uint64_t term() const { return term_; }
  [[nodiscard]] int leader() const { return leader_; }  // -1: unknown
  [[nodiscard]] uint64_t commit_index() const { return commit_; }
  [[nodiscard]] uint64_t last_index() const { return log_.size(); }
  [[nodiscard]] const RaftStats& stats() const { return stats_; }
  // The state machine's value of key (nullptr: absent).
  [[nodiscard]] const RaftValue* value(const RaftKey& key) const;

 private:
  // A client's session: where its replies go and which incarnation it is.
  using Session = std::pair<uint64_t, uint64_t>;  // (client, session)
  struct Applied {  // a session's newest applied request and its reply
    uint64_t seq = 0;
    RaftStatus status = RaftStatus::kOk;
    bool has_value = false;
    RaftValue value{};
  };
  struct Pending {  // a client request in the log, not yet answered
    uint64_t sent_time = 0;
  };

  [[nodiscard]] uint64_t last_term() const { return log_.empty() ? 0 : log_.back().term; }
  [[nodiscard]] uint64_t term_at(uint64_t index) const { return index == 0 ? 0 : log_[index - 1].term; }
  void arm_election(double now_ms);
  void become_follower(uint64_t term, double now_ms);
  void start_election(double now_ms);
  void become_leader(double now_ms);
  void send_append(uint32_t peer);
  void send_append_if_idle(uint32_t peer);
  void advance_commit();
  void apply();
  void reply(uint64_t client, uint64_t sent_time, uint64_t seq, RaftStatus status, const RaftValue* v);
  void on_request_vote(const uint64_t* w, double now_ms);
  void on_vote(const uint64_t* w, double now_ms);
  void on_append(const uint64_t* w, uint32_t n, uint16_t len, double now_ms);
  void on_append_response(const uint64_t* w, double now_ms);
  void on_client(const uint64_t* w, uint32_t n, uint16_t len);
  [[nodiscard]] bool valid_peer(uint64_t id) const { return id < c_.servers && id != c_.self; }
  // Every change of the persistent state goes through these (storage_).
  void set_term_vote(uint64_t term, int vote);
  void log_append(const RaftEntry& e);
  void log_truncate(uint64_t entries);

  RaftNodeConfig c_;
  RaftStorage* storage_;
  Send send_;
  Log log_line_;
  SeededDraw rng_;  // election timeouts: one seed, one run with any standard library
  Role role_ = Role::kFollower;
  uint64_t term_ = 0;
  int voted_for_ = -1;
  int leader_ = -1;
  std::vector<RaftEntry> log_;  // index i is log_[i - 1]
  uint64_t commit_ = 0, applied_ = 0;
  std::vector<uint64_t> next_, match_;
  // An AppendEntries with entries is unanswered: send that follower no more
  // until it answers or the next heartbeat (a dead or slow follower is not
  // flooded; the transport would hold every one of them).
  std::vector<uint8_t> awaiting_;
  // When each follower last answered: one silent for an election timeout
  // (down, most likely) is sent a heartbeat only that often, not every
  // heartbeat period: each message to a dead host is retransmitted by the
  // transport until given up, and a storm of them slows the live ones.
  std::vector<double> last_answer_ms_, last_sent_ms_;
  uint32_t votes_ = 0;
  std::vector<uint8_t> voted_for_me_;  // this election's granted votes, by server (one each)
  double election_deadline_ = 0, next_heartbeat_ = 0;
  double last_heard_ms_ = 0;  // from a leader (or the start of our last election)
  absl::flat_hash_map<RaftKey, RaftValue> kv_;
  absl::flat_hash_map<Session, Applied> applied_by_session_;
  absl::flat_hash_map<std::tuple<uint64_t, uint64_t, uint64_t>, Pending> pending_;  // (client, session, seq)
  RaftStats stats_;
};

}  // namespace nanopu::apps
