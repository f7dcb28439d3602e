#include "runtime/client/call_endpoint.h"

#include <algorithm>
#include <memory>
#include <mutex>

#include "absl/container/flat_hash_map.h"
#include "lib/base/log.h"
#include "nanopu/address.h"
#include "nanopu/stats.h"
#include "runtime/client/client_impl.h"

namespace nanopu::rpc {
namespace {

// Endpoints by thread. Threads of several cores make and drop theirs at
// once, rarely: a mutex, never on a call's path.
std::mutex g_mu;
absl::flat_hash_map<const Thread*, std::unique_ptr<CallEndpoint>>& endpoints() {
  static auto* m = new absl::flat_hash_map<const Thread*, std::unique_ptr<CallEndpoint>>();
  return *m;
}

}  // namespace

CallEndpoint& CallEndpoint::attach(Thread& t) {
  std::lock_guard<std::mutex> lock(g_mu);
  std::unique_ptr<CallEndpoint>& e = endpoints()[&t];
  if (e == nullptr) e.reset(new CallEndpoint(t));
  ++e->users_;
  return *e;
}

void CallEndpoint::detach(CallEndpoint& e) {
  std::lock_guard<std::mutex> lock(g_mu);
  if (--e.users_ == 0) endpoints().erase(&e.t_);
}

void CallEndpoint::remove_client(Client::Impl* c) {
  clients_.erase(std::remove(clients_.begin(), clients_.end(), c), clients_.end());
  for (auto it = owners_.begin(); it != owners_.end();) {
    if (it->second == c) owners_.erase(it++);
    else ++it;
  }
}

Client::Impl* CallEndpoint::owner(uint64_t id) const {
  auto it = owners_.find(id);
  return it == owners_.end() ? nullptr : it->second;
}

HeldMessage CallEndpoint::hold(const AppHeader& h, uint64_t word) {
  HeldMessage m;
  m.header = h;
  m.word = word;
  m.sender_core_ns = t_.sender_core_ns();
  m.run = t_.rx_run();
  m.payload.resize(t_.rx_words_left());
  (void)t_.read_words(m.payload);
  t_.msg_done();
  return m;
}

CallEndpoint::Route CallEndpoint::route(Client::Impl* reader, const AppHeader& h, uint64_t word,
                                        ClientCounters* counters, Client::Impl** other) {
  const uint8_t kind = call_kind(word);
  const bool long_enough = h.len >= 8;
  if (long_enough && (kind == kReplyKind || kind == kFailedReplyKind)) {
    Client::Impl* o = owner(call_id(word));
    if (o != nullptr && o == reader) return Route::kMine;
    if (o != nullptr && reader == nullptr && other != nullptr) {  // the serve loop completes it in place
      *other = o;
      return Route::kOtherClient;
    }
    if (o != nullptr) {
      o->hold_reply(hold(h, word));
      return Route::kHeld;
    }
    if (counters != nullptr) ++counters->late_replies;
    t_.msg_done();
    return Route::kDropped;
  }
  if (long_enough && kind == kRequestKind && serving_) {
    if (reader == nullptr) return Route::kRequest;
    held_requests.push_back(hold(h, word));
    return Route::kHeld;
  }
  if (counters != nullptr) ++counters->stray_messages;
  NANOPU_LOG_EVERY(kWarning, 1.0,
                   "rpc on context %u: dropped a message from %s:%u that is no call of this thread's "
                   "(nanopu/rpc.h)",
                   t_.context(), format_ipv4(h.ip).c_str(), h.context);
  t_.msg_done();
  return Route::kDropped;
}

void CallEndpoint::release_open_request() {
  if (open_request_ == nullptr || open_request_->from_memory_) return;
  ServerCall& c = *open_request_;
  open_request_words_.resize(t_.rx_words_left());
  (void)t_.read_words(open_request_words_);
  t_.msg_done();
  c.buffered_ = open_request_words_;
  c.buffered_at_ = 0;
  c.from_memory_ = true;
  open_request_ = nullptr;
}

void CallEndpoint::take_notices() {
  TxFailure f;
  while (t_.next_failure(&f)) {
    if (f.reason == TxFailureReason::kPeerRestarted) {  // in order with the others: each client's queue
      for (Client::Impl* c : clients_) c->notice(f);
      continue;
    }
    if (Client::Impl* c = owner(f.tag & kCallIdMask)) c->notice(f);  // a call's request (its tag is its id)
  }
}

void CallEndpoint::began_reply(Peer to, uint64_t id) {
  has_open_reply_ = true;
  open_reply_ = OpenReply{to, id, t_.tx_tag(), t_.counters().err_incomplete};
}

void CallEndpoint::check_open_reply() {
  if (!has_open_reply_) return;
  const OpenReply r = open_reply_;
  // Still the thread's open message and short of its length, or dropped
  // as incomplete since (at the next header or msg_done()).
  const bool open_and_short = t_.tx_tag() == r.tag && t_.tx_words_left() != 0;
  const bool dropped = t_.counters().err_incomplete != r.incomplete;
  if (open_and_short || dropped) {
    has_open_reply_ = false;
    (void)send_failed(r.to, r.id, ServerFailure::kIncomplete);
    return;
  }
  if (t_.tx_tag() != r.tag || t_.tx_words_left() == 0) has_open_reply_ = false;
}

ApiError CallEndpoint::send_failed(Peer to, uint64_t id, ServerFailure why, uint16_t run) {
  has_open_reply_ = false;  // a new header drops an open one (counted by the thread)
  const ApiError e = t_.write_header(to.ip, to.context, 8, run);
  if (e != ApiError::kOk && e != ApiError::kIncomplete) return e;
  return t_.write(call_word(kFailedReplyKind, id, static_cast<uint8_t>(why)));
}

}  // namespace nanopu::rpc
