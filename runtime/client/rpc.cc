// nanopu/rpc.h: calls on a Thread's messages. Every call is tracked by id
// (reply matching), by the tag of its request message (failure notices) and
// by its deadline (a min-heap, cleaned lazily).
#include "nanopu/rpc.h"

#include <algorithm>
#include <queue>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "lib/base/log.h"
#include "nanopu/address.h"

namespace nanopu::rpc {

std::string_view call_status_name(CallStatus s) {
  switch (s) {
    case CallStatus::kOk: return "ok";
    case CallStatus::kDeadlineExceeded: return "deadline_exceeded";
    case CallStatus::kNoAnswer: return "no_answer";
    case CallStatus::kRefused: return "refused";
    case CallStatus::kNoSlot: return "no_slot";
    case CallStatus::kPeerRestarted: return "peer_restarted";
  }
  return "unknown";
}

namespace {

CallStatus status_of(TxFailureReason r) {
  switch (r) {
    case TxFailureReason::kRefused: return CallStatus::kRefused;
    case TxFailureReason::kNoSlot: return CallStatus::kNoSlot;
    case TxFailureReason::kPeerRestarted: return CallStatus::kPeerRestarted;
    case TxFailureReason::kNoAnswer: break;
  }
  return CallStatus::kNoAnswer;
}

}  // namespace

class Client::Impl {
 public:
  struct Pending {
    uint64_t user = 0;
    uint32_t request_bytes = 0;
    uint64_t tag = 0;
    uint64_t sent_ns = 0;
    uint64_t deadline_ns = 0;
    Peer to;
  };
  using Deadline = std::pair<uint64_t, uint64_t>;  // (deadline_ns, id)

  explicit Impl(Thread& t) : t_(t) {}

  ApiError call(Peer to, std::span<const uint64_t> words, uint32_t bytes, std::chrono::microseconds deadline,
                uint64_t user, uint64_t* id);
  bool next(Completion* c, std::chrono::microseconds timeout);
  bool take_reply(Completion* c);
  bool take_notice(Completion* c);
  // A peer restarted at at_ns: every call to it sent before then is doomed
  // (its request was taken by the old run, or will be refused by the new).
  void doom_calls_to(uint32_t ip, uint64_t at_ns);
  bool take_deadline(Completion* c, uint64_t now);
  void complete(uint64_t id, const Pending& p, CallStatus s, uint64_t now, Completion* c);

  Thread& t_;
  absl::flat_hash_map<uint64_t, Pending> pending_;  // by call id
  absl::flat_hash_map<uint64_t, uint64_t> by_tag_;  // request's message tag -> call id
  std::priority_queue<Deadline, std::vector<Deadline>, std::greater<>> deadlines_;
  std::vector<uint64_t> reply_;
  std::vector<uint64_t> doomed_;  // call ids to complete with kPeerRestarted
  uint64_t next_id_ = 1;
  ClientCounters counters_;
};

ApiError Client::Impl::call(Peer to, std::span<const uint64_t> words, uint32_t bytes,
                            std::chrono::microseconds deadline, uint64_t user, uint64_t* id) {
  if (bytes > kMaxCallBytes) return ApiError::kTooLong;
  if (words.size() < (bytes + 7) / 8) return ApiError::kBadLength;
  const uint64_t cid = next_id_++ & kCallIdMask;
  if (const ApiError e = t_.write_header(to.ip, to.context, size_t{bytes} + 8); e != ApiError::kOk) return e;
  const uint64_t tag = t_.tx_tag();
  const uint64_t now = t_.now_ns();
  // In the tables before the last word leaves: a reply cannot come sooner.
  const uint64_t due = now + static_cast<uint64_t>(deadline.count()) * 1000;
  pending_[cid] = Pending{user, bytes, tag, now, due, to};
  by_tag_[tag] = cid;
  deadlines_.emplace(due, cid);
  ++counters_.calls;
  if (const ApiError e = t_.write(call_word(kRequestKind, cid)); e != ApiError::kOk) return e;
  if (bytes != 0)
    if (const ApiError e = t_.write_words(words.first((bytes + 7) / 8)); e != ApiError::kOk) return e;
  *id = cid;
  return ApiError::kOk;
}

void Client::Impl::complete(uint64_t id, const Pending& p, CallStatus s, uint64_t now, Completion* c) {
  c->id = id;
  c->user = p.user;
  c->status = s;
  c->to = p.to;
  c->latency = std::chrono::nanoseconds(now - std::min(now, p.sent_ns));
  c->request_bytes = p.request_bytes;
  if (s != CallStatus::kOk) {
    c->reply = {};
    c->reply_bytes = 0;
    c->server_core_ns = 0;
  }
  by_tag_.erase(p.tag);
  pending_.erase(id);
  ++counters_.completed;
  if (s == CallStatus::kDeadlineExceeded) ++counters_.deadlines;
  else if (s != CallStatus::kOk) ++counters_.failures;
}

bool Client::Impl::take_reply(Completion* c) {
  while (t_.msgs_ready()) {
    const AppHeader h = AppHeader::from_word(t_.read());
    const uint64_t word = h.len >= 8 ? t_.read() : 0;
    auto it = call_kind(word) == kReplyKind ? pending_.find(call_id(word)) : pending_.end();
    // A reply counts only from where its call went: an id is no secret.
    if (it != pending_.end() && (it->second.to.ip != h.ip || it->second.to.context != h.context))
      it = pending_.end();
    if (it == pending_.end()) {
      if (call_kind(word) == kReplyKind) ++counters_.late_replies;
      else ++counters_.stray_messages;
      t_.msg_done();
      continue;
    }
    const uint32_t bytes = h.len - 8u;
    const double core_ns = t_.sender_core_ns();
    reply_.assign((bytes + 7) / 8, 0);
    (void)t_.read_words(reply_);
    t_.msg_done();
    const Pending p = it->second;
    complete(it->first, p, CallStatus::kOk, t_.now_ns(), c);
    c->reply = reply_;
    c->reply_bytes = bytes;
    c->server_core_ns = core_ns;
    return true;
  }
  return false;
}

void Client::Impl::doom_calls_to(uint32_t ip, uint64_t at_ns) {
  const size_t first = doomed_.size();
  for (const auto& [id, p] : pending_)
    if (p.to.ip == ip && p.sent_ns < at_ns) doomed_.push_back(id);
  // In call order, not the hash map's (which differs from process to
  // process): a simulation replays the same completions.
  std::sort(doomed_.begin() + static_cast<std::ptrdiff_t>(first), doomed_.end());
}

bool Client::Impl::take_notice(Completion* c) {
  TxFailure f;
  for (;;) {
    while (!doomed_.empty()) {
      const uint64_t id = doomed_.back();
      doomed_.pop_back();
      auto it = pending_.find(id);
      if (it == pending_.end()) continue;  // answered or failed meanwhile
      const Pending p = it->second;
      complete(id, p, CallStatus::kPeerRestarted, t_.now_ns(), c);
      return true;
    }
    if (!t_.next_failure(&f)) return false;
    if (f.reason == TxFailureReason::kPeerRestarted) {
      doom_calls_to(f.dst_ip, f.at_ns);
      continue;
    }
    auto tag = by_tag_.find(f.tag);
    if (tag == by_tag_.end()) continue;  // not a request of this client's (or long completed)
    auto it = pending_.find(tag->second);
    if (it == pending_.end()) continue;
    const Pending p = it->second;
    complete(it->first, p, status_of(f.reason), t_.now_ns(), c);
    return true;
  }
}

bool Client::Impl::take_deadline(Completion* c, uint64_t now) {
  while (!deadlines_.empty() && deadlines_.top().first <= now) {
    const auto [due, id] = deadlines_.top();
    deadlines_.pop();
    auto it = pending_.find(id);
    if (it == pending_.end() || it->second.deadline_ns != due) continue;  // completed already
    const Pending p = it->second;
    complete(id, p, CallStatus::kDeadlineExceeded, now, c);
    return true;
  }
  return false;
}

bool Client::Impl::next(Completion* c, std::chrono::microseconds timeout) {
  const uint64_t end = t_.now_ns() + static_cast<uint64_t>(timeout.count()) * 1000;
  for (;;) {
    // Replies first: one that came before its deadline counts as in time.
    if (take_reply(c) || take_notice(c)) return true;
    const uint64_t now = t_.now_ns();
    if (take_deadline(c, now)) return true;
    if (now >= end || t_.stopping()) return false;
    uint64_t until = end;
    if (!deadlines_.empty()) until = std::min(until, deadlines_.top().first);
    (void)t_.wait_for(std::chrono::nanoseconds(until - std::min(until, now)));
  }
}

Client::Client(Thread& t) : t_(t), impl_(std::make_unique<Impl>(t)) { t.watch_failures(true); }
Client::~Client() = default;

ApiError Client::call(Peer to, std::span<const uint64_t> words, uint32_t request_bytes,
                      std::chrono::microseconds deadline, uint64_t user, uint64_t* id) {
  return impl_->call(to, words, request_bytes, deadline, user, id);
}

bool Client::next(Completion* c, std::chrono::microseconds timeout) { return impl_->next(c, timeout); }

size_t Client::in_flight() const { return impl_->pending_.size(); }

void Client::abandon_all() {
  impl_->pending_.clear();
  impl_->doomed_.clear();
  impl_->by_tag_.clear();
  while (!impl_->deadlines_.empty()) impl_->deadlines_.pop();
}

const ClientCounters& Client::counters() const { return impl_->counters_; }

ApiError ServerCall::reply(uint32_t bytes) {
  if (replied_) return ApiError::kMessageOpen;
  if (bytes > kMaxCallBytes) return ApiError::kTooLong;
  if (const ApiError e = t_.write_header(from_.ip, from_.context, size_t{bytes} + 8); e != ApiError::kOk)
    return e;
  replied_ = true;
  return t_.write(call_word(kReplyKind, id_));
}

bool serve_calls(Thread& t, uint16_t context, uint8_t priority,
                 const std::function<void(ServerCall&)>& handler) {
  if (!t.bind(context, priority).ok()) return false;
  uint64_t strays = 0;
  while (t.wait()) {
    const AppHeader h = AppHeader::from_word(t.read());
    const uint64_t word = h.len >= 8 ? t.read() : 0;
    if (call_kind(word) != kRequestKind) {  // not a call: nothing to answer
      if (strays++ == 0)
        NANOPU_LOG(kWarning, "serve_calls on context %u: dropped a message from %s:%u that is not a call "
                   "request (nanopu/rpc.h; a client must use rpc::Client)",
                   context, format_ipv4(h.ip).c_str(), h.context);
      t.msg_done();
      continue;
    }
    ServerCall call(t);
    call.from_ = Peer{h.ip, h.context};
    call.id_ = call_id(word);
    call.request_bytes_ = h.len - 8u;
    handler(call);
    if (!call.replied()) (void)call.reply(0);  // an empty reply: no caller waits for nothing
    t.msg_done();
  }
  if (strays != 0)
    NANOPU_LOG(kWarning, "serve_calls on context %u: %llu messages that were not call requests dropped",
               context, static_cast<unsigned long long>(strays));
  return true;
}

}  // namespace nanopu::rpc
