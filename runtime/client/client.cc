// nanopu/rpc.h: the client side. A call is tracked by id (its request's tag:
// reply matching and failure notices alike) and by its deadline.
#include <algorithm>
#include <utility>

#include "lib/base/log.h"
#include "nanopu/address.h"
#include "nanopu/rpc.h"
#include "runtime/client/call_endpoint.h"
#include "runtime/client/client_impl.h"

namespace nanopu::rpc {

std::string_view call_status_name(CallStatus s) {
  switch (s) {
    case CallStatus::kOk: return "ok";
    case CallStatus::kDeadlineExceeded: return "deadline_exceeded";
    case CallStatus::kNoAnswer: return "no_answer";
    case CallStatus::kRefused: return "refused";
    case CallStatus::kNoSlot: return "no_slot";
    case CallStatus::kPeerRestarted: return "peer_restarted";
    case CallStatus::kServerFailed: return "server_failed";
    case CallStatus::kRejected: return "rejected";
  }
  return "unknown";
}

std::string_view server_failure_name(ServerFailure f) {
  switch (f) {
    case ServerFailure::kNone: return "none";
    case ServerFailure::kReplyTooLong: return "reply_too_long";
    case ServerFailure::kIncomplete: return "reply_incomplete";
    case ServerFailure::kNoBuffers: return "no_buffers";
    case ServerFailure::kAbandoned: return "abandoned";
    case ServerFailure::kFailed: return "failed";
    case ServerFailure::kNotAHandlerThread: return "not_a_handler_thread";
  }
  return "unknown";
}

HistoryType history_type_of(CallStatus s) {
  switch (s) {
    case CallStatus::kOk: return HistoryType::kOk;
    // Never sent, or refused unread by the server's NIC: certainly not done.
    case CallStatus::kNoSlot:
    case CallStatus::kRejected: return HistoryType::kFail;
    // The request may have reached a handler: a deadline, the server's old
    // run gone with it, its reply failed, or the transport gave up waiting
    // for acknowledgements that may have been the ones lost. A refusal by
    // the server's new run too: the old run may have taken the request
    // whole and died before its acknowledgement left (the primary-backup
    // example's seed 86 read a value whose write was refused).
    case CallStatus::kRefused:
    case CallStatus::kDeadlineExceeded:
    case CallStatus::kNoAnswer:
    case CallStatus::kPeerRestarted:
    case CallStatus::kServerFailed: break;
  }
  return HistoryType::kInfo;
}

namespace {

CallStatus status_of(TxFailureReason r) {
  switch (r) {
    case TxFailureReason::kRefused: return CallStatus::kRefused;
    case TxFailureReason::kNoSlot: return CallStatus::kNoSlot;
    case TxFailureReason::kPeerRestarted: return CallStatus::kPeerRestarted;
    case TxFailureReason::kRejected: return CallStatus::kRejected;
    case TxFailureReason::kNoAnswer: break;
  }
  return CallStatus::kNoAnswer;
}

}  // namespace

Client::Impl::Impl(Client& owner, Thread& t) : owner_(owner), t_(t), ep_(CallEndpoint::attach(t)) {
  ep_.add_client(this);
}

Client::Impl::~Impl() {
  abandon_all();
  ep_.remove_client(this);
  CallEndpoint::detach(ep_);
}

template <typename F>
auto Client::Impl::guarded(F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const std::exception& e) {
    recorder_failed(e.what());
  } catch (...) {
    recorder_failed("an exception that is no std::exception");
  }
  return {};
}

void Client::Impl::recorder_failed(const std::string& what) {
  NANOPU_LOG(kError, "rpc::Client on context %u: its history recorder threw (%s); no more of its calls are recorded",
             t_.context(), what.c_str());
  history_->set_error("the history recorder of a client on context " + std::to_string(t_.context()) + " threw at " +
                      std::to_string(t_.now_ns()) + " ns: " + what);
  recorder_ = {};  // no invoke is recorded from now on; open calls still complete in the history
}

void Client::Impl::misuse(const char* what) {
  ++counters_.misuse;
  if (counters_.misuse == 1) NANOPU_LOG(kWarning, "rpc::Client on thread %u: %s (counted in misuse)", t_.id(), what);
}

ApiError Client::Impl::call(Peer to, std::span<const uint64_t> words, uint32_t bytes,
                            std::chrono::microseconds deadline, uint64_t user, uint64_t* id) {
  if (!t_.is_current()) {
    misuse("call() from another thread than the client's");
    return ApiError::kWrongThread;
  }
  if (deadline.count() <= 0) {
    misuse("call() with a deadline <= 0: refused, nothing sent");
    return ApiError::kBadArgument;
  }
  if (bytes > kMaxCallBytes) return ApiError::kTooLong;
  if (words.size() < (bytes + 7) / 8) return ApiError::kBadLength;
  ep_.check_open_reply();  // a reply left short before this call's header drops it
  // kIncomplete: a message this thread left half-written was dropped; this one began.
  if (const ApiError e = t_.write_header(to.ip, to.context, size_t{bytes} + 8);
      e != ApiError::kOk && e != ApiError::kIncomplete)
    return e;
  const uint64_t cid = t_.tx_tag() & kCallIdMask;
  const uint64_t now = t_.now_ns();
  // In the tables before the last word leaves: a reply cannot come sooner.
  const uint64_t due = now + static_cast<uint64_t>(deadline.count()) * 1000;
  Pending p{user, bytes, now, due, to, std::nullopt, 0};
  if (history_ != nullptr && recorder_.invoke) p.op = guarded([&] { return recorder_.invoke(words.first((bytes + 7) / 8), bytes); });
  if (p.op) p.token = hc_.invoke(now, *p.op);
  pending_[cid] = std::move(p);
  ep_.own(cid, this);
  deadlines_.emplace(due, cid);
  ++counters_.calls;
  *id = cid;
  // A word that cannot be written leaves the message short: the thread
  // drops it; the call then ends by its deadline or a failure notice.
  if (const ApiError e = t_.write(call_word(kRequestKind, cid)); e != ApiError::kOk) return e;
  if (bytes != 0)
    if (const ApiError e = t_.write_words(words.first((bytes + 7) / 8)); e != ApiError::kOk) return e;
  return ApiError::kOk;
}

void Client::Impl::record_end(const Pending& p, CallStatus s, const Completion& c, uint64_t now) {
  if (!p.op) return;
  if (s != CallStatus::kOk) {
    if (history_type_of(s) == HistoryType::kFail) hc_.fail(p.token, now);
    else hc_.info(p.token, now);
    return;
  }
  if (!recorder_.ok) return hc_.ok(p.token, now);
  const std::optional<HistoryOutcome> o =
      guarded([&] { return std::optional<HistoryOutcome>(recorder_.ok(*p.op, c.reply, c.reply_bytes)); });
  if (!o || o->type == HistoryType::kInfo || o->type == HistoryType::kInvoke) return hc_.info(p.token, now);
  if (o->type == HistoryType::kFail) return hc_.fail(p.token, now);
  hc_.ok(p.token, now, o->value);
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
    c->after_other_work = false;
    if (s != CallStatus::kServerFailed) c->server_failure = ServerFailure::kNone;
  }
  record_end(p, s, *c, now);
  ep_.disown(id);
  pending_.erase(id);
  ++counters_.completed;
  if (s == CallStatus::kDeadlineExceeded) ++counters_.deadlines;
  else if (s != CallStatus::kOk) ++counters_.failures;
}

void Client::Impl::complete_reply(uint64_t id, const Pending& p, uint64_t word, uint32_t bytes, double core_ns,
                                  Completion* c) {
  const uint64_t now = t_.now_ns();
  if (call_kind(word) == kFailedReplyKind) {
    c->server_failure = static_cast<ServerFailure>(call_detail(word));
    complete(id, p, CallStatus::kServerFailed, now, c);
    return;
  }
  c->reply = reply_;
  c->reply_bytes = bytes;
  c->server_core_ns = core_ns;
  c->after_other_work = (call_detail(word) & kReplyAfterOtherWork) != 0;
  c->server_failure = ServerFailure::kNone;
  complete(id, p, CallStatus::kOk, now, c);
}

bool Client::Impl::complete_from_fifo(const AppHeader& h, uint64_t word, Completion* c) {
  auto it = pending_.find(call_id(word));
  // A reply counts only from where its call went: an id is no secret.
  if (it == pending_.end() || it->second.to.ip != h.ip || it->second.to.context != h.context) {
    ++counters_.late_replies;
    t_.msg_done();
    return false;
  }
  const uint32_t bytes = h.len - 8u;
  const double core_ns = t_.sender_core_ns();
  reply_.assign((bytes + 7) / 8, 0);
  (void)t_.read_words(reply_);
  t_.msg_done();
  const Pending p = std::move(it->second);
  complete_reply(call_id(word), p, word, bytes, core_ns, c);
  return true;
}

bool Client::Impl::take_reply(Completion* c) {
  ep_.release_open_request();  // inside a handler: its request leaves the FIFO's head
  while (t_.msgs_ready()) {
    const AppHeader h = AppHeader::from_word(t_.read());
    const uint64_t word = h.len >= 8 ? t_.read() : 0;
    if (ep_.route(this, h, word, &counters_, nullptr) != CallEndpoint::Route::kMine) continue;
    if (complete_from_fifo(h, word, c)) return true;
  }
  return false;
}

bool Client::Impl::take_mailbox(Completion* c) {
  while (!mailbox_.empty()) {
    HeldMessage m = std::move(mailbox_.front());
    mailbox_.pop_front();
    auto it = pending_.find(call_id(m.word));
    if (it == pending_.end() || it->second.to.ip != m.header.ip || it->second.to.context != m.header.context) {
      ++counters_.late_replies;
      continue;
    }
    reply_ = std::move(m.payload);
    const Pending p = std::move(it->second);
    complete_reply(call_id(m.word), p, m.word, m.header.len - 8u, m.sender_core_ns, c);
    return true;
  }
  return false;
}

void Client::Impl::peer_restarted(uint32_t ip, uint64_t at_ns) {
  const size_t first = doomed_.size();
  for (const auto& [id, p] : pending_)
    if (p.to.ip == ip && p.sent_ns < at_ns) doomed_.push_back(id);
  // In call order, not the hash map's (which differs from process to
  // process): a simulation replays the same completions.
  std::sort(doomed_.begin() + static_cast<std::ptrdiff_t>(first), doomed_.end());
}

bool Client::Impl::take_notice(Completion* c) {
  for (;;) {
    while (!doomed_.empty()) {
      const uint64_t id = doomed_.back();
      doomed_.pop_back();
      auto it = pending_.find(id);
      if (it == pending_.end()) continue;  // answered or failed meanwhile
      const Pending p = std::move(it->second);
      complete(id, p, CallStatus::kPeerRestarted, t_.now_ns(), c);
      return true;
    }
    if (notices_.empty()) return false;
    const TxFailure f = notices_.front();
    notices_.pop_front();
    if (f.reason == TxFailureReason::kPeerRestarted) {
      peer_restarted(f.dst_ip, f.at_ns);
      continue;
    }
    auto it = pending_.find(f.tag & kCallIdMask);
    if (it == pending_.end()) continue;  // long completed
    const Pending p = std::move(it->second);
    complete(f.tag & kCallIdMask, p, status_of(f.reason), t_.now_ns(), c);
    return true;
  }
}

bool Client::Impl::take_deadline(Completion* c, uint64_t now) {
  while (!deadlines_.empty() && deadlines_.top().first <= now) {
    const auto [due, id] = deadlines_.top();
    deadlines_.pop();
    auto it = pending_.find(id);
    if (it == pending_.end() || it->second.deadline_ns != due) continue;  // completed already
    const Pending p = std::move(it->second);
    complete(id, p, CallStatus::kDeadlineExceeded, now, c);
    return true;
  }
  return false;
}

bool Client::Impl::take_held(Completion* c) {
  ep_.take_notices();
  if (take_mailbox(c) || take_notice(c)) return true;
  return take_deadline(c, t_.now_ns());
}

uint64_t Client::Impl::next_deadline_ns() const {
  return deadlines_.empty() ? UINT64_MAX : deadlines_.top().first;
}

bool Client::Impl::next(Completion* c, std::chrono::microseconds timeout) {
  const uint64_t end = t_.now_ns() + static_cast<uint64_t>(std::max<int64_t>(0, timeout.count())) * 1000;
  for (;;) {
    // Replies first (held ones came first): one that came before its
    // deadline counts as in time.
    if (take_mailbox(c) || take_reply(c)) return true;
    ep_.take_notices();
    if (take_notice(c)) return true;
    const uint64_t now = t_.now_ns();
    if (take_deadline(c, now)) return true;
    if (now >= end || t_.stopping()) return false;
    const uint64_t until = std::min(end, next_deadline_ns());
    (void)t_.wait_for(std::chrono::nanoseconds(until - std::min(until, now)));
  }
}

void Client::Impl::abandon_all() {
  const uint64_t now = t_.now_ns();
  // In call order: a simulation writes the same history.
  std::vector<uint64_t> ids;
  for (const auto& [id, p] : pending_) ids.push_back(id);
  std::sort(ids.begin(), ids.end());
  for (uint64_t id : ids) {
    const Pending& p = pending_.at(id);
    if (p.op) hc_.info(p.token, now);
    ep_.disown(id);
  }
  pending_.clear();
  doomed_.clear();
  mailbox_.clear();
  notices_.clear();
  while (!deadlines_.empty()) deadlines_.pop();
}

Client::Client(Thread& t) : t_(t), impl_(std::make_unique<Impl>(*this, t)) { t.watch_failures(true); }
Client::~Client() = default;

ApiError Client::call(Peer to, std::span<const uint64_t> words, uint32_t request_bytes,
                      std::chrono::microseconds deadline, uint64_t user, uint64_t* id) {
  return impl_->call(to, words, request_bytes, deadline, user, id);
}

bool Client::next(Completion* c, std::chrono::microseconds timeout) { return impl_->next(c, timeout); }

size_t Client::in_flight() const { return impl_->pending_.size(); }

void Client::abandon_all() { impl_->abandon_all(); }

const ClientCounters& Client::counters() const { return impl_->counters_; }

void Client::record(History* history, CallRecorder recorder) { impl_->record(history, std::move(recorder)); }

uint64_t Client::next_deadline_ns() const { return impl_->next_deadline_ns(); }

}  // namespace nanopu::rpc
