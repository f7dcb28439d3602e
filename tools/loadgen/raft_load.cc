#include "tools/loadgen/raft_load.h"

#include <algorithm>
#include <random>  // std::random_device: a live session nonce, not a seeded draw
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "nanopu/seeded_draw.h"
#include "lib/contract/clock.h"
#include "tools/loadgen/checked_client.h"
#include "tools/loadgen/load_schedule.h"
#include "apps/raft/raft_protocol.h"

namespace nanopu::apps {
namespace {

RaftKey raft_key(uint32_t k) { return {0x7261667400000000ull | k, CheckedClient::mix(k + 3)}; }  // "raft" + id

struct Request {
  uint32_t slot = 0;
  uint64_t seq = 0;
  bool put = false;
  uint32_t key = 0, version = 0, min_version = 0;
  uint32_t target = 0;      // server index it went to last
  uint64_t last_send = 0;   // TSC
  uint64_t token = 0;       // its operation in the history
};

class RaftLoad : public LoadSchedule {
 public:
  RaftLoad(Thread& t, const LoadGenOptions& o, const RaftLoadOptions& ro, LoadGenResult* r,
           RaftLoadResult* rr)
      : LoadSchedule(t, o, r), ro_(ro), rr_(rr), sent_version_(ro.keys, 0), acked_version_(ro.keys, 0),
        put_busy_(ro.keys, 0), slot_busy_(o.outstanding, 0), slot_seq_(o.outstanding, 0),
        keys_(ro.keys), put_fraction_(ro.put_fraction), retry_tsc_(static_cast<uint64_t>(ro.retry_ms * 1e-3 * hz_)),
        session_(session_nonce()), hc_(o.history) {
    transport_give_ups_are_retried_ = true;
    // Shared keys (--shared_keys): versions in this client's own space.
    if (o.shared_keys) std::fill(sent_version_.begin(), sent_version_.end(), o.writer_id << 20);
  }

  void run() {
    if (absl::Status s = t_.bind(o_.context, 0); !s.ok()) {
      r_->error = std::string(s.message());
      return;
    }
    failures_seen_ = t_.tx_failures();
    if (ro_.preload && !preload_keys()) {
      r_->error = "preloading the keys failed: no progress within --drain_timeout (is a raft "
                  "cluster up, with a leader?)";
      return;
    }
    measure();
  }

 private:
  // A server remembers the last seq it applied per session (the client
  // word and this process's session nonce) and answers an older one
  // "superseded". The nonce is drawn at start, so a restarted or second
  // loadgen at the same address and context is a new session, whatever its
  // seqs: live from the system's randomness, on a modelled clock from the
  // host's seed (a restarted host has another; a replayed run must send the
  // same bytes).
  uint64_t session_nonce() const {
    if (clock::is_virtual()) return mix64(o_.seed ^ 0x5e5510'4e0ce0ffull) | 1;
    std::random_device rd;
    return (uint64_t{rd()} << 32 | rd()) | 1;
  }
  bool preload_keys();
  bool issue(bool put, uint32_t key, uint64_t sent_tsc);
  bool send(Request& q, uint64_t sent_time);
  // At most one PUT per key in flight: two could be applied in either
  // order (a retry that went to a new leader lands after a later PUT), and
  // a GET could then rightly return the lower version, which the version
  // check would call stale. A busy key is drawn again, at worst read.
  bool send_next(uint64_t sent_tsc) override {
    const bool put = rng_.chance(put_fraction_);
    auto key = static_cast<uint32_t>(rng_.below(keys_));
    for (int tries = 0; put && put_busy_[key] && tries < 8; ++tries) key = static_cast<uint32_t>(rng_.below(keys_));
    return issue(put && !put_busy_[key], key, sent_tsc);
  }
  void receive_all(bool measure) override;
  [[nodiscard]] size_t in_flight_count() const override { return in_flight_.size(); }
  void forget_in_flight() override {
    std::vector<uint64_t> order;  // in the order they were sent: a simulation writes the same history
    for (const auto& [sent, q] : in_flight_) order.push_back(sent);
    std::sort(order.begin(), order.end());
    for (uint64_t sent : order) hc_.info(in_flight_[sent].token, now());
    in_flight_.clear();
    std::fill(slot_busy_.begin(), slot_busy_.end(), 0);
    // put_busy_ stays: a forgotten PUT may still be applied, so its key
    // takes no other PUT.
  }
  [[nodiscard]] bool check(const AppHeader& h, const uint64_t* w, const Request& q);
  void report_bad(const char* why, const AppHeader& h, const uint64_t* w, const Request* q);
  void retry_overdue();
  // Requests in flight are looked at every quarter of --raft_retry_ms.
  uint64_t next_timer_ns() const override { return in_flight_.empty() ? UINT64_MAX : next_retry_scan_; }

  const RaftLoadOptions& ro_;
  RaftLoadResult* rr_;
  std::vector<uint32_t> sent_version_, acked_version_;
  std::vector<uint8_t> put_busy_;  // a PUT of the key is in flight
  std::vector<uint8_t> slot_busy_;
  std::vector<uint64_t> slot_seq_;
  uint32_t keys_;
  double put_fraction_;
  uint64_t retry_tsc_;
  uint32_t leader_ = 0;  // where requests go first
  uint64_t failures_seen_ = 0;
  uint64_t next_retry_scan_ = 0;
  absl::flat_hash_map<uint64_t, Request> in_flight_;  // by the first attempt's sent_time
  uint64_t session_;  // this client's incarnation
  HistoryClient hc_;
  uint32_t read_version_ = 0;  // check(): the version a GET's reply carried, 0 for a miss
};

bool RaftLoad::send(Request& q, uint64_t sent_time) {
  const uint64_t to = ro_.cluster[q.target];
  const RaftOp op = q.put ? RaftOp::kPut : RaftOp::kGet;
  if (t_.write(AppHeader{static_cast<uint32_t>(to), static_cast<uint16_t>(to >> 32),
                         raft_client_request_len(op)}
                   .word()) != ApiError::kOk) {
    ++r_->send_failures;
    return false;
  }
  const uint64_t client = uint64_t{q.slot} << 48 | uint64_t{o_.context} << 32 | ro_.client_ip;
  const RaftKey k = raft_key(q.key);
  for (uint64_t w : {raft_w0(0, RaftType::kClientRequest), sent_time, client, session_, q.seq,
                     static_cast<uint64_t>(op), k[0], k[1]})
    (void)t_.write(w);
  if (q.put)
    for (uint32_t i = 0; i < kRaftValueWords; ++i) (void)t_.write(CheckedClient::value_word(q.key, q.version, i));
  q.last_send = now();
  return true;
}

bool RaftLoad::issue(bool put, uint32_t key, uint64_t sent_tsc) {
  const auto free = std::find(slot_busy_.begin(), slot_busy_.end(), 0);
  if (free == slot_busy_.end()) return false;  // open loop beyond --outstanding: wait for a slot
  Request q;
  q.slot = static_cast<uint32_t>(free - slot_busy_.begin());
  q.seq = slot_seq_[q.slot] + 1;
  q.put = put;
  q.key = key;
  if (q.put) q.version = sent_version_[q.key] + 1;
  else q.min_version = acked_version_[q.key];
  q.target = leader_;
  const uint64_t sent_time = next_sent_time(sent_tsc);
  if (!send(q, sent_time)) return false;
  slot_seq_[q.slot] = q.seq;
  slot_busy_[q.slot] = 1;
  if (q.put) {
    sent_version_[q.key] = q.version;
    put_busy_[q.key] = 1;
    ++rr_->puts;
  } else {
    ++rr_->gets;
  }
  q.token = hc_.invoke(now(), HistoryOp{q.put ? "write" : "read", q.key,
                                        q.put ? HistoryValue::of(q.version) : HistoryValue::null()});
  in_flight_[sent_time] = q;
  return true;
}

// Every key written once, unmeasured: the values a GET may then see are
// this process's own, whatever an earlier client left in the store.
bool RaftLoad::preload_keys() {
  const auto patience = static_cast<uint64_t>(o_.drain_timeout_s * hz_);
  uint32_t k = 0;
  uint64_t last_progress = now();
  while (!t_.stopping() && (k < ro_.keys || !in_flight_.empty())) {
    while (k < ro_.keys && issue(true, k, now())) ++k;
    const size_t before = in_flight_.size();
    receive_all(false);
    const uint64_t t_now = now();
    if (in_flight_.size() != before) {
      last_progress = t_now;
      continue;  // a reply freed a slot: the next key goes at once
    }
    if (t_now - last_progress > patience) return false;
    wait_until(now() + 1000000);  // a reply or 1 ms: never a spin
  }
  const bool clean = r_->bad_replies == 0 && r_->send_failures == 0;
  r_->bad_replies = r_->send_failures = 0;
  *rr_ = RaftLoadResult{};
  failures_seen_ = t_.tx_failures();
  reset_given_up();
  return clean && !t_.stopping();
}

// Counts a bad reply; the first is described on stderr (a user needs to
// see what was wrong, not only that something was).
void RaftLoad::report_bad(const char* why, const AppHeader& h, const uint64_t* w, const Request* q) {
  if (r_->bad_replies++ != 0) return;
  std::fprintf(stderr,
               "nanopu-loadgen: raft: first bad reply (%s): from %u.%u.%u.%u:%u, len %u, words %llx %llx "
               "%llx status %llu, value word %llx",
               why, h.ip >> 24, (h.ip >> 16) & 0xff, (h.ip >> 8) & 0xff, h.ip & 0xff, h.context, h.len,
               static_cast<unsigned long long>(w[0]), static_cast<unsigned long long>(w[1]),
               static_cast<unsigned long long>(w[2]), static_cast<unsigned long long>(w[3]),
               static_cast<unsigned long long>(w[5]));
  if (q != nullptr)
    std::fprintf(stderr, "; request: %s key %u, version %u, versions expected %u..%u", q->put ? "PUT" : "GET",
                 q->key, q->version, q->min_version, sent_version_[q->key]);
  std::fprintf(stderr, "\n");
}

bool RaftLoad::check(const AppHeader& h, const uint64_t* w, const Request& q) {
  const auto status = static_cast<RaftStatus>(w[3]);
  // Shared keys: any writer's version of the key; else this client's own window.
  const uint32_t lowest = o_.shared_keys ? 0 : q.min_version;
  const uint32_t highest = o_.shared_keys ? UINT32_MAX : sent_version_[q.key];
  read_version_ = 0;
  if (q.put) return status == RaftStatus::kOk && h.len == raft_client_reply_len(false);
  if (status == RaftStatus::kNotFound) return lowest == 0 && h.len == raft_client_reply_len(false);
  const bool ok = status == RaftStatus::kOk && h.len == raft_client_reply_len(true) &&
                  CheckedClient::is_value_between(w + 5, kRaftValueWords, q.key, lowest, highest);
  if (ok) ++rr_->get_hits;
  read_version_ = static_cast<uint32_t>(w[5]);
  return ok;
}

// Requests unanswered for --raft_retry_ms, or given up by the transport
// (their server is down), go to the next server.
void RaftLoad::retry_overdue() {
  const uint64_t t_now = now();
  const uint64_t failures = t_.tx_failures();
  const bool gave_up = failures != failures_seen_;
  rr_->transport_give_ups += failures - failures_seen_;
  failures_seen_ = failures;
  if (!gave_up && t_now < next_retry_scan_) return;
  next_retry_scan_ = t_now + retry_tsc_ / 4;
  // Oldest first, not in the hash map's order (which differs from process
  // to process): a simulation replays the same resends.
  std::vector<uint64_t> order;
  order.reserve(in_flight_.size());
  for (const auto& entry : in_flight_) order.push_back(entry.first);
  std::sort(order.begin(), order.end());
  for (const uint64_t sent_time : order) {
    Request& q = in_flight_.find(sent_time)->second;
    if (!gave_up && t_now - q.last_send < retry_tsc_) continue;
    if (gave_up && t_now - q.last_send < retry_tsc_ / 4) continue;
    q.target = (q.target + 1) % static_cast<uint32_t>(ro_.cluster.size());
    leader_ = q.target;
    ++rr_->resent;
    (void)send(q, sent_time);
  }
}

void RaftLoad::receive_all(bool measure) {
  while (t_.msgs_ready()) {
    const AppHeader h = AppHeader::from_word(t_.read());
    uint64_t w[kRaftClientReplyWords + kRaftValueWords] = {};
    const uint32_t n = std::min<uint32_t>(h.payload_words(), kRaftClientReplyWords + kRaftValueWords);
    for (uint32_t i = 0; i < n; ++i) w[i] = t_.read();
    t_.msg_done();
    auto it = in_flight_.find(w[1]);
    if (it == in_flight_.end() || it->second.seq != w[2] ||
        raft_type(w[0]) != RaftType::kClientRequestResponse) {
      // An earlier attempt's second answer, or not ours.
      if (it == in_flight_.end() && w[1] != 0 && w[1] <= last_sent_tsc_) continue;
      report_bad(it == in_flight_.end() ? "no request was sent at its sent_time"
                 : it->second.seq != w[2] ? "its seq is not the request's"
                                          : "not a client reply",
                 h, w, nullptr);
      continue;
    }
    Request& q = it->second;
    const auto status = static_cast<RaftStatus>(w[3]);
    const auto from = std::find_if(ro_.cluster.begin(), ro_.cluster.end(), [&](uint64_t s) {
      return static_cast<uint32_t>(s) == h.ip && static_cast<uint16_t>(s >> 32) == h.context;
    });
    if (status == RaftStatus::kRedirect || status == RaftStatus::kRetry) {
      ++rr_->redirects;
      if (status == RaftStatus::kRedirect && w[4] >= 1 && w[4] <= ro_.cluster.size()) {
        q.target = static_cast<uint32_t>(w[4] - 1);
        leader_ = q.target;
        ++rr_->resent;
        (void)send(q, it->first);
      }  // retry: no leader yet; the timeout sends it on
      continue;
    }
    if (from != ro_.cluster.end()) leader_ = static_cast<uint32_t>(from - ro_.cluster.begin());
    const Request done = q;
    in_flight_.erase(it);
    slot_busy_[done.slot] = 0;
    if (done.put) put_busy_[done.key] = 0;
    if (status == RaftStatus::kSuperseded) {  // its session applied a later one first: its own answer is gone
      ++rr_->superseded;
      count_given_up();
      hc_.info(done.token, now());
      continue;
    }
    if (!check(h, w, done)) {
      hc_.info(done.token, now());  // a wrong reply: what happened is unknown
      report_bad("wrong status, length or value", h, w, &done);
      continue;
    }
    if (done.put) hc_.ok(done.token, now());
    else hc_.ok(done.token, now(), read_version_ == 0 ? HistoryValue::null() : HistoryValue::of(read_version_));
    if (done.put) acked_version_[done.key] = std::max(acked_version_[done.key], done.version);
    if (measure) record_reply(w[1]);
  }
  retry_overdue();
}

}  // namespace

void run_raft_client(Thread& t, const LoadGenOptions& o, const RaftLoadOptions& ro,
                     LoadGenResult* r, RaftLoadResult* rr) {
  RaftLoad(t, o, ro, r, rr).run();
}

}  // namespace nanopu::apps
