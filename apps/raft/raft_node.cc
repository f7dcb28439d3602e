#include "apps/raft/raft_node.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace nanopu::apps {

RaftNode::RaftNode(const RaftNodeConfig& config, Send send, Log log, RaftStorage* storage)
    : c_(config), storage_(storage), send_(std::move(send)), log_line_(std::move(log)),
      rng_(config.seed * 7919 + config.self), next_(config.servers, 1), match_(config.servers, 0),
      awaiting_(config.servers, 0), last_answer_ms_(config.servers, 0), last_sent_ms_(config.servers, 0) {
  if (storage_ != nullptr) {  // what this server promised before it restarted
    term_ = storage_->recovered().term;
    voted_for_ = storage_->recovered().vote;
    log_ = storage_->recovered().log;
  }
}

void RaftNode::set_term_vote(uint64_t term, int vote) {
  term_ = term;
  voted_for_ = vote;
  if (storage_ != nullptr) storage_->save_term_vote(term, vote);
}

void RaftNode::log_append(const RaftEntry& e) {
  log_.push_back(e);
  if (storage_ != nullptr) storage_->append(e);
}

void RaftNode::log_truncate(uint64_t entries) {
  log_.resize(entries);
  if (storage_ != nullptr) storage_->truncate(entries);
}

void RaftNode::start(double now_ms) { arm_election(now_ms); }

void RaftNode::arm_election(double now_ms) {
  election_deadline_ = now_ms + rng_.between(c_.election_min_ms, c_.election_max_ms);
}

void RaftNode::tick(double now_ms) {
  if (role_ == Role::kLeader) {
    if (now_ms >= next_heartbeat_) {
      next_heartbeat_ = now_ms + c_.heartbeat_ms;
      for (uint32_t p = 0; p < c_.servers; ++p) {
        if (p == c_.self) continue;
        const bool silent = now_ms - last_answer_ms_[p] > c_.election_min_ms;
        if (silent && now_ms - last_sent_ms_[p] < c_.election_min_ms) continue;
        last_sent_ms_[p] = now_ms;
        send_append(p);
      }
    }
  } else if (now_ms >= election_deadline_) {
    start_election(now_ms);
  }
}

void RaftNode::become_follower(uint64_t term, double now_ms) {
  if (term > term_) {
    set_term_vote(term, -1);
    // A new term's leader is unknown until it is heard from (Raft §5.2):
    // keeping the old one would send clients to a server that may be dead,
    // and back there again on every redirect.
    leader_ = -1;
  }
  if (role_ != Role::kFollower) {
    pending_.clear();  // a deposed leader answers no more
    last_heard_ms_ = now_ms;
  }
  role_ = Role::kFollower;
  arm_election(now_ms);
}

void RaftNode::start_election(double now_ms) {
  log_line_(absl::StrCat("raft: server ", c_.self, " heard no leader for ",
                         static_cast<int64_t>(now_ms - last_heard_ms_), " ms: election for term ", term_ + 1));
  last_heard_ms_ = now_ms;
  set_term_vote(term_ + 1, static_cast<int>(c_.self));
  ++stats_.elections;
  role_ = Role::kCandidate;
  leader_ = -1;
  votes_ = 1;
  voted_for_me_.assign(c_.servers, 0);
  voted_for_me_[c_.self] = 1;
  arm_election(now_ms);
  if (votes_ * 2 > c_.servers) {  // a cluster of one
    become_leader(now_ms);
    return;
  }
  for (uint32_t p = 0; p < c_.servers; ++p)
    if (p != c_.self)
      send_({false, p, 0, {raft_w0(term_, RaftType::kRequestVote), c_.self, log_.size(), last_term()}});
}

void RaftNode::become_leader(double now_ms) {
  role_ = Role::kLeader;
  leader_ = static_cast<int>(c_.self);
  ++stats_.terms_led;
  log_line_(absl::StrCat("raft: server ", c_.self, " is the leader of term ", term_));
  std::fill(next_.begin(), next_.end(), log_.size() + 1);
  std::fill(match_.begin(), match_.end(), 0);
  std::fill(awaiting_.begin(), awaiting_.end(), 0);
  std::fill(last_answer_ms_.begin(), last_answer_ms_.end(), now_ms);
  match_[c_.self] = log_.size();
  // A no-op of its own term: entries of earlier terms commit with it
  // (Raft §5.4.2: a leader counts replicas only of its own term's entries).
  RaftEntry noop;
  noop.term = term_;
  log_append(noop);
  match_[c_.self] = log_.size();
  next_heartbeat_ = now_ms;  // announce at once
  tick(now_ms);
}

void RaftNode::send_append_if_idle(uint32_t peer) {
  if (!awaiting_[peer]) send_append(peer);
}

void RaftNode::send_append(uint32_t peer) {
  const uint64_t prev = std::min<uint64_t>(next_[peer] - 1, log_.size());
  const uint64_t n = std::min<uint64_t>(kRaftMaxBatch, log_.size() - prev);
  awaiting_[peer] = n != 0;
  Out o{false, peer, 0, {}};
  o.words.reserve(kRaftAppendHeadWords + n * kRaftEntryWords);
  o.words = {raft_w0(term_, RaftType::kAppendEntries), c_.self, prev, term_at(prev), commit_, n};
  o.words.resize(kRaftAppendHeadWords + n * kRaftEntryWords);
  for (uint64_t i = 0; i < n; ++i) raft_entry_to_words(log_[prev + i], &o.words[kRaftAppendHeadWords + i * kRaftEntryWords]);
  send_(o);
}

void RaftNode::advance_commit() {
  for (uint64_t idx = log_.size(); idx > commit_; --idx) {
    if (log_[idx - 1].term != term_) break;  // only the leader's own term counts
    uint32_t replicas = 0;
    for (uint32_t p = 0; p < c_.servers; ++p) replicas += match_[p] >= idx ? 1 : 0;
    if (replicas * 2 > c_.servers) {
      stats_.committed += idx - commit_;
      commit_ = idx;
      apply();
      return;
    }
  }
}

void RaftNode::apply() {
  while (applied_ < commit_) {
    const RaftEntry& e = log_[applied_++];
    if (e.op == RaftOp::kNoop) continue;
    Applied& a = applied_by_session_[{e.client, e.session}];
    if (e.client_seq > a.seq) {  // not applied before (a client's retry appended twice is skipped)
      a.seq = e.client_seq;
      if (e.op == RaftOp::kPut) {
        ++stats_.puts_applied;
        kv_[e.key] = e.value;
        a.status = RaftStatus::kOk;
        a.has_value = false;
      } else {
        ++stats_.gets_applied;
        const auto it = kv_.find(e.key);
        a.status = it == kv_.end() ? RaftStatus::kNotFound : RaftStatus::kOk;
        a.has_value = it != kv_.end();
        if (a.has_value) a.value = it->second;
      }
    }
    if (role_ != Role::kLeader) continue;
    const auto p = pending_.find({e.client, e.session, e.client_seq});
    if (p == pending_.end()) continue;
    if (a.seq == e.client_seq)
      reply(e.client, p->second.sent_time, e.client_seq, a.status, a.has_value ? &a.value : nullptr);
    else  // a later request of its session was applied first: this one's answer is not kept
      reply(e.client, p->second.sent_time, e.client_seq, RaftStatus::kSuperseded, nullptr);
    pending_.erase(p);
  }
}

void RaftNode::reply(uint64_t client, uint64_t sent_time, uint64_t seq, RaftStatus status,
                     const RaftValue* v) {
  Out o{true, 0, client, {raft_w0(term_, RaftType::kClientRequestResponse), sent_time, seq,
                          static_cast<uint64_t>(status), static_cast<uint64_t>(leader_ + 1)}};
  if (v != nullptr) o.words.insert(o.words.end(), v->begin(), v->end());
  send_(o);
}

void RaftNode::receive(const uint64_t* w, uint32_t n, uint16_t len, double now_ms) {
  if (n < 1 || len < 8) {
    ++stats_.bad;
    return;
  }
  const RaftType type = raft_type(w[0]);
  // Every server message carries its sender's term: a newer one demotes us.
  const bool from_server = type != RaftType::kClientRequest && type != RaftType::kClientRequestResponse;
  const uint32_t need = type == RaftType::kRequestVote ? 4
                        : type == RaftType::kRequestVoteResponse ? 3
                        : type == RaftType::kAppendEntries ? kRaftAppendHeadWords
                        : type == RaftType::kAppendEntriesResponse ? 4
                        : type == RaftType::kClientRequest ? kRaftClientRequestWords : 0;
  if (need == 0 || n < need || len < 8 * need || (from_server && !valid_peer(w[1]))) {
    ++stats_.bad;
    return;
  }
  if (from_server && raft_term(w[0]) > term_) become_follower(raft_term(w[0]), now_ms);
  switch (type) {
    case RaftType::kRequestVote: on_request_vote(w, now_ms); break;
    case RaftType::kRequestVoteResponse: on_vote(w, now_ms); break;
    case RaftType::kAppendEntries: on_append(w, n, len, now_ms); break;
    case RaftType::kAppendEntriesResponse: on_append_response(w, now_ms); break;
    case RaftType::kClientRequest: on_client(w, n, len); break;
    default: ++stats_.bad;
  }
}

void RaftNode::on_request_vote(const uint64_t* w, double now_ms) {
  const uint64_t term = raft_term(w[0]), cand = w[1], last_index = w[2], last_t = w[3];
  // The candidate's log must be at least as up to date as ours (Raft §5.4.1).
  const bool up_to_date = last_t > last_term() || (last_t == last_term() && last_index >= log_.size());
  const bool grant = term == term_ && (voted_for_ < 0 || voted_for_ == static_cast<int>(cand)) && up_to_date;
  if (grant) {
    set_term_vote(term_, static_cast<int>(cand));
    arm_election(now_ms);
  }
  send_({false, static_cast<uint32_t>(cand), 0, {raft_w0(term_, RaftType::kRequestVoteResponse), c_.self, grant ? 1u : 0u}});
}

void RaftNode::on_vote(const uint64_t* w, double now_ms) {
  if (role_ != Role::kCandidate || raft_term(w[0]) != term_ || w[2] == 0) return;
  const auto peer = static_cast<uint32_t>(w[1]);  // valid_peer() checked in receive()
  if (voted_for_me_[peer]) return;  // a vote counts once, however often it arrives
  voted_for_me_[peer] = 1;
  if (++votes_ * 2 > c_.servers) become_leader(now_ms);
}

void RaftNode::on_append(const uint64_t* w, uint32_t n, uint16_t len, double now_ms) {
  const uint64_t term = raft_term(w[0]), leader = w[1], prev = w[2], prev_term = w[3], commit = w[4],
                 count = w[5];
  auto respond = [&](bool ok, uint64_t match) {
    send_({false, static_cast<uint32_t>(leader), 0,
           {raft_w0(term_, RaftType::kAppendEntriesResponse), c_.self, ok ? 1u : 0u, match}});
  };
  if (count > kRaftMaxBatch || len != 8 * (kRaftAppendHeadWords + count * kRaftEntryWords) ||
      n < kRaftAppendHeadWords + count * kRaftEntryWords) {
    ++stats_.bad;
    return;
  }
  if (term < term_) {
    respond(false, log_.size());
    return;
  }
  become_follower(term, now_ms);  // a candidate of this term steps down too
  leader_ = static_cast<int>(leader);
  last_heard_ms_ = now_ms;
  if (prev > log_.size() || term_at(prev) != prev_term) {
    respond(false, std::min<uint64_t>(log_.size(), prev == 0 ? 0 : prev - 1));
    return;
  }
  for (uint64_t i = 0; i < count; ++i) {
    const uint64_t* e = w + kRaftAppendHeadWords + i * kRaftEntryWords;
    const uint64_t idx = prev + 1 + i;
    if (idx <= log_.size()) {
      if (log_[idx - 1].term == e[0]) continue;  // already have it
      log_truncate(idx - 1);  // a conflict: drop it and what follows (never committed)
    }
    log_append(raft_entry_from_words(e));
  }
  if (commit > commit_) {
    commit_ = std::min<uint64_t>(commit, prev + count);
    apply();
  }
  respond(true, prev + count);
}

void RaftNode::on_append_response(const uint64_t* w, double now_ms) {
  if (role_ != Role::kLeader || raft_term(w[0]) != term_) return;
  const auto peer = static_cast<uint32_t>(w[1]);
  last_answer_ms_[peer] = now_ms;
  const uint64_t match = std::min<uint64_t>(w[3], log_.size());
  awaiting_[peer] = 0;
  if (w[2] != 0) {
    match_[peer] = std::max(match_[peer], match);
    next_[peer] = match_[peer] + 1;
    advance_commit();
    if (next_[peer] <= log_.size()) send_append(peer);  // more to send
  } else {
    next_[peer] = std::max<uint64_t>(1, std::min(next_[peer] - 1, match + 1));
    send_append(peer);
  }
}

void RaftNode::on_client(const uint64_t* w, uint32_t n, uint16_t len) {
  const uint64_t sent_time = w[1], client = w[2], session = w[3], seq = w[4];
  const auto op = static_cast<RaftOp>(w[5]);
  ++stats_.client_requests;
  if ((op != RaftOp::kGet && op != RaftOp::kPut) || len != raft_client_request_len(op) ||
      n < len / 8u || seq == 0) {
    ++stats_.bad;
    reply(client, sent_time, seq, RaftStatus::kBad, nullptr);
    return;
  }
  if (role_ != Role::kLeader) {
    ++stats_.redirects;
    reply(client, sent_time, seq, leader_ < 0 ? RaftStatus::kRetry : RaftStatus::kRedirect, nullptr);
    return;
  }
  // Applied already (a retry whose reply was lost): the same answer again;
  // older than its session's newest: superseded, said so (never silence).
  if (const auto a = applied_by_session_.find({client, session});
      a != applied_by_session_.end() && a->second.seq >= seq) {
    ++stats_.resent_requests;
    if (a->second.seq == seq)
      reply(client, sent_time, seq, a->second.status, a->second.has_value ? &a->second.value : nullptr);
    else
      reply(client, sent_time, seq, RaftStatus::kSuperseded, nullptr);
    return;
  }
  // In the log, not yet committed: answer when it is, to this attempt.
  if (const auto p = pending_.find({client, session, seq}); p != pending_.end()) {
    ++stats_.resent_requests;
    p->second.sent_time = sent_time;
    return;
  }
  RaftEntry e;
  e.term = term_;
  e.client = client;
  e.session = session;
  e.client_seq = seq;
  e.op = op;
  e.key = {w[6], w[7]};
  if (op == RaftOp::kPut) std::copy(w + 8, w + 8 + kRaftValueWords, e.value.begin());
  log_append(e);
  match_[c_.self] = log_.size();
  pending_[{client, session, seq}] = Pending{sent_time};
  for (uint32_t p = 0; p < c_.servers; ++p)
    if (p != c_.self) send_append_if_idle(p);
  advance_commit();  // a cluster of one
}

const RaftValue* RaftNode::value(const RaftKey& key) const {
  const auto it = kv_.find(key);
  return it == kv_.end() ? nullptr : &it->second;
}

}  // namespace nanopu::apps
