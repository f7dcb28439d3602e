#include "apps/chain/chain_master.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "apps/chain/chain_control.h"
#include "apps/chain/chain_replica.h"
#include "nanopu/address.h"
#include "nanopu/rpc.h"

namespace nanopu::apps {
namespace {

struct Node {
  uint64_t addr = 0;        // chain_node of its data context
  uint64_t nonce = 0;       // drawn at its start (0: not heard yet)
  uint32_t misses = 0;      // pings missed in a row
  uint32_t answered = 0;    // pings answered in a row
  uint64_t epoch = 0;       // its configuration's, as its last answer said
  uint64_t ready = 0;       // its ready_epoch
  uint64_t suspect_at = 0;  // when it was suspected (0: not suspected)
  bool restarted = false;   // answered with a new nonce: its store is empty
};

class Master {
 public:
  Master(Thread& t, const ChainMasterOptions& o, ChainMasterStats* stats) : t_(t), o_(o), n_(*stats), client_(t) {
    for (uint64_t m : o.members) nodes_.push_back(Node{m});
    config_.epoch = 1;
    config_.members = o.members;
    announce("the chain");
  }

  void run() {
    while (!t_.stopping()) {
      const uint64_t round_end = t_.now_ns() + o_.ping_ns;
      send_round();
      collect(round_end);
      decide();
      ++n_.rounds;
    }
  }

 private:
  enum Kind : uint64_t { kPing = 0, kConfig = 1 };
  [[nodiscard]] static rpc::Peer control(uint64_t node) {
    return {chain_node_ip(node), chain_control_context(chain_node_ctx(node))};
  }
  [[nodiscard]] bool in_config(const Node& x) const { return config_.index_of(x.addr) >= 0; }
  [[nodiscard]] Node* node(uint64_t addr) {
    for (Node& x : nodes_)
      if (x.addr == addr) return &x;
    return nullptr;
  }
  // Who gets the newest configuration: a node heard from (its nonce known)
  // that does not have it and has not restarted since it was a member; while a joiner does not have it, only the joiner.
  [[nodiscard]] bool gets_config(const Node& x) {
    if (x.nonce == 0 || x.restarted || x.epoch >= config_.epoch) return false;
    const Node* j = config_.joining() != 0 ? node(config_.joining()) : nullptr;
    return j == nullptr || j == &x || j->epoch >= config_.epoch;
  }

  void send_round() {
    // The send time rides with the ping: a replica's lease runs from it, so
    // a ping delivered late (a partition healed) renews nothing it should not.
    // Its epoch renews only a replica that has this configuration.
    const std::vector<uint64_t> ping = {kCtlPing, t_.now_ns(), config_.epoch};
    const auto deadline = std::chrono::microseconds(o_.ping_ns / 1000 + 1);
    for (size_t i = 0; i < nodes_.size(); ++i) {
      Node& x = nodes_[i];
      uint64_t id = 0;
      // A suspected node gets no ping: its lease runs out meanwhile.
      if (x.suspect_at == 0 && client_.call(control(x.addr), ping, 24, deadline, i << 1 | kPing, &id) == ApiError::kOk)
        ++open_;
      if (!gets_config(x)) continue;
      std::vector<uint64_t> cfg = {kCtlConfig, x.nonce};
      for (uint64_t w : config_.words()) cfg.push_back(w);
      if (client_.call(control(x.addr), cfg, static_cast<uint32_t>(cfg.size() * 8), deadline, i << 1 | kConfig, &id) ==
          ApiError::kOk) {
        ++open_;
        ++n_.configs_sent;
      }
    }
  }

  // Until the round's end and every call of it has ended. The wait is the
  // client's, not the thread's: a reply that came after its call's
  // deadline is taken (and dropped) there, where Thread::wait_for would
  // return at once for it, round after round.
  void collect(uint64_t round_end) {
    rpc::Completion c;
    while (!t_.stopping()) {
      const uint64_t now = t_.now_ns();
      if (now >= round_end && open_ == 0) return;
      // Past the round's end the calls' own deadlines finish them.
      const auto wait = std::chrono::microseconds(now < round_end ? (round_end - now + 999) / 1000 : 1000);
      if (!client_.next(&c, wait)) continue;
      --open_;
      Node& x = nodes_[c.user >> 1];
      if ((c.user & 1) == kConfig) {
        if (c.status == rpc::CallStatus::kOk && c.reply_bytes >= 8) x.epoch = std::max(x.epoch, c.reply[0]);
        continue;
      }
      if (c.status == rpc::CallStatus::kOk && c.reply_bytes >= 32) {
        if (x.nonce != 0 && c.reply[3] != x.nonce) {
          ++n_.restarts;
          x.restarted = true;
        }
        x.nonce = c.reply[3];
        x.epoch = c.reply[0];
        x.ready = c.reply[1];
        x.misses = 0;
        ++x.answered;
      } else {
        ++x.misses;
        x.answered = 0;
        if (x.misses >= o_.dead_pings && x.suspect_at == 0) x.suspect_at = t_.now_ns();
      }
    }
  }

  void decide() {
    if (remove_one() || finish_join()) return;
    start_join();
  }

  // A member that restarted, or whose lease has run out since it was
  // suspected: out — unless it is the last that holds the chain's state.
  bool remove_one() {
    const uint64_t now = t_.now_ns();
    for (Node& x : nodes_) {
      const bool gone = x.restarted || (x.suspect_at != 0 && now >= x.suspect_at + o_.lease_ns);
      if (!gone) continue;
      const int i = config_.index_of(x.addr);
      const bool joiner = config_.joining() == x.addr;
      const size_t holders = config_.members.size() - (config_.pending ? 1 : 0);
      x.suspect_at = 0;  // pinged again from now on: it may come back
      x.misses = 0;
      if (i >= 0 && !joiner && holders == 1) {
        // The last one stays: if it only stopped answering, it may answer
        // again; if it restarted, the chain's state is gone, and the chain
        // answers nothing rather than something wrong.
        if (x.restarted && !lost_) std::fprintf(stderr, "chain-master: the last replica holding the chain restarted; its state is lost\n");
        lost_ = lost_ || x.restarted;
        continue;
      }
      x.restarted = false;
      if (i < 0) continue;
      config_.members.erase(config_.members.begin() + i);
      if (joiner) config_.pending = false;  // a joiner gone; a predecessor gone: the new one sends the snapshot
      ++config_.epoch;
      ++n_.removals;
      announce(joiner ? "the joiner removed" : "a replica removed");
      return true;
    }
    return false;
  }

  // A joiner that holds its snapshot: the join is done. One that does not
  // after join_rounds: out, to try again later.
  bool finish_join() {
    const uint64_t j = config_.joining();
    if (j == 0) return false;
    if (node(j)->ready == config_.epoch) {
      config_.pending = false;
      ++n_.joins_done;
      ++config_.epoch;
      announce("a replica joined");
      return true;
    }
    if (++join_waited_ < o_.join_rounds) return true;  // one join at a time
    // It may have become ready since its last answer, and answer READs as
    // the tail until its lease runs out: suspected, no longer pinged, and
    // taken out by remove_one once that lease is over.
    if (Node* x = node(j); x->suspect_at == 0) {
      x->suspect_at = t_.now_ns();
      ++n_.joins_abandoned;
    }
    return true;
  }

  // A node outside the chain that answers again: it joins as a pending tail.
  void start_join() {
    for (Node& x : nodes_) {
      if (in_config(x) || x.answered < 2 || x.suspect_at != 0 || x.restarted ||
          config_.members.size() >= kChainMaxMembers)
        continue;
      config_.members.push_back(x.addr);
      config_.pending = true;
      join_waited_ = 0;
      ++config_.epoch;
      ++n_.joins_started;
      announce("a replica joining");
      return;
    }
  }

  void announce(const char* what) {
    n_.epoch = config_.epoch;
    std::string chain;
    for (size_t i = 0; i < config_.members.size(); ++i)
      chain += (i ? "," : "") + format_ipv4(chain_node_ip(config_.members[i])) + ":" +
               std::to_string(chain_node_ctx(config_.members[i]));
    std::fprintf(stderr, "chain-master: epoch %llu, %s: %s%s\n", static_cast<unsigned long long>(config_.epoch), what,
                 chain.c_str(), config_.pending ? " (the tail joining)" : "");
  }

  Thread& t_;
  const ChainMasterOptions& o_;
  ChainMasterStats& n_;
  rpc::Client client_;
  std::vector<Node> nodes_;
  ChainConfig config_;
  int open_ = 0;
  uint32_t join_waited_ = 0;
  bool lost_ = false;
};

}  // namespace

bool serve_chain_master(Thread& t, uint16_t context, const ChainMasterOptions& o, ChainMasterStats* stats) {
  if (o.members.empty() || o.members.size() > kChainMaxMembers) return false;
  if (!t.bind(context).ok()) return false;
  Master(t, o, stats).run();
  return true;
}

}  // namespace nanopu::apps
