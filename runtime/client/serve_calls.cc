// nanopu/rpc.h: the server side. One loop reads the thread's FIFO: a
// request goes to the handler (read in place, from the FIFO), a reply to the
// Client of this thread whose call it answers, then to the completion
// handler. A reply that cannot be sent whole reaches its caller as a failed
// reply, never as an empty kOk.
#include <atomic>
#include <utility>

#include "lib/base/log.h"
#include "nanopu/address.h"
#include "nanopu/rpc.h"
#include "runtime/client/call_endpoint.h"
#include "runtime/client/client_impl.h"

namespace nanopu::rpc {
namespace {

ServerFailure failure_of(ApiError e) {
  switch (e) {
    case ApiError::kTooLong:
    case ApiError::kBadLength: return ServerFailure::kReplyTooLong;
    case ApiError::kNoBuffers: return ServerFailure::kNoBuffers;
    default: return ServerFailure::kFailed;
  }
}

// The first misuse of a kind in this process is logged; every one returns
// its error.
void log_misuse_once(std::atomic<bool>& said, const char* what) {
  if (!said.exchange(true, std::memory_order_relaxed)) NANOPU_LOG(kWarning, "rpc: %s", what);
}
std::atomic<bool> g_said_abandoned{false}, g_said_wrong_thread{false};

}  // namespace

uint64_t ServerCall::read() {
  if (!from_memory_) return t_.read();
  return buffered_at_ < buffered_.size() ? buffered_[buffered_at_++] : 0;
}

ApiError ServerCall::read_words(std::span<uint64_t> words) {
  if (!from_memory_) return t_.read_words(words);
  for (uint64_t& w : words) {
    if (buffered_at_ >= buffered_.size()) return ApiError::kReadPastEnd;
    w = buffered_[buffered_at_++];
  }
  return ApiError::kOk;
}

ApiError ServerCall::reply(uint32_t bytes) {
  if (replied_) return ApiError::kMessageOpen;
  if (bytes > kMaxCallBytes) {
    failure_ = ServerFailure::kReplyTooLong;  // the caller is told so when the handler returns
    return ApiError::kTooLong;
  }
  ep_.check_open_reply();
  const ApiError e = t_.write_header(from_.ip, from_.context, size_t{bytes} + 8, run_);
  if (e != ApiError::kOk && e != ApiError::kIncomplete) {
    failure_ = failure_of(e);
    return e;
  }
  replied_ = true;
  ep_.began_reply(from_, id_);
  return t_.write(call_word(kReplyKind, id_, from_memory_ ? kReplyAfterOtherWork : 0));
}

ApiError ServerCall::fail() {
  if (replied_) return ApiError::kMessageOpen;
  replied_ = true;
  return ep_.send_failed(from_, id_, ServerFailure::kFailed, run_);
}

DeferredReply ServerCall::defer() {
  if (replied_) return {};
  replied_ = deferred_ = true;
  return DeferredReply(&t_, from_, run_, id_);
}

DeferredReply::DeferredReply(Thread* t, Peer to, uint16_t run, uint64_t id)
    : t_(t), ep_(&CallEndpoint::attach(*t)), to_(to), run_(run), id_(id) {}

DeferredReply::DeferredReply(DeferredReply&& o) noexcept
    : t_(std::exchange(o.t_, nullptr)),
      ep_(std::exchange(o.ep_, nullptr)),
      writing_(std::exchange(o.writing_, nullptr)),
      to_(o.to_),
      run_(o.run_),
      id_(o.id_) {}

DeferredReply& DeferredReply::operator=(DeferredReply&& o) noexcept {
  if (this != &o) {
    abandon();
    t_ = std::exchange(o.t_, nullptr);
    ep_ = std::exchange(o.ep_, nullptr);
    writing_ = std::exchange(o.writing_, nullptr);
    to_ = o.to_;
    run_ = o.run_;
    id_ = o.id_;
  }
  return *this;
}

DeferredReply::~DeferredReply() { abandon(); }

void DeferredReply::abandon() {
  if (t_ != nullptr) {
    log_misuse_once(g_said_abandoned,
                    "a DeferredReply was dropped unanswered: its caller gets kServerFailed (abandoned)");
    if (t_->is_current() && !t_->stopping())
      (void)answer(kFailedReplyKind, 0, static_cast<uint8_t>(ServerFailure::kAbandoned));
  }
  t_ = nullptr;
  writing_ = nullptr;
  if (ep_ != nullptr) CallEndpoint::detach(*std::exchange(ep_, nullptr));
}

ApiError DeferredReply::answer(uint8_t kind, uint32_t bytes, uint8_t detail) {
  if (t_ == nullptr) return ApiError::kNoMessage;
  if (!t_->is_current()) {
    log_misuse_once(g_said_wrong_thread,
                    "a DeferredReply answered from another thread than the one that took its request: "
                    "refused (kWrongThread)");
    return ApiError::kWrongThread;
  }
  Thread& t = *std::exchange(t_, nullptr);
  CallEndpoint& ep = *ep_;
  ApiError e = ApiError::kOk;
  if (kind == kFailedReplyKind) {
    e = ep.send_failed(to_, id_, static_cast<ServerFailure>(detail), run_);
  } else if (bytes > kMaxCallBytes) {
    e = ApiError::kTooLong;
    (void)ep.send_failed(to_, id_, ServerFailure::kReplyTooLong, run_);
  } else {
    ep.check_open_reply();
    e = t.write_header(to_.ip, to_.context, size_t{bytes} + 8, run_);
    if (e != ApiError::kOk && e != ApiError::kIncomplete) {
      (void)ep.send_failed(to_, id_, failure_of(e), run_);
    } else {
      ep.began_reply(to_, id_);
      writing_ = &t;
      e = t.write(call_word(kReplyKind, id_, kReplyAfterOtherWork));
    }
  }
  return e;
}

ApiError DeferredReply::reply(uint32_t bytes) { return answer(kReplyKind, bytes, 0); }

ApiError DeferredReply::fail() { return answer(kFailedReplyKind, 0, static_cast<uint8_t>(ServerFailure::kFailed)); }

ApiError DeferredReply::write(uint64_t word) {
  if (writing_ == nullptr) return ApiError::kNoMessage;
  if (!writing_->is_current()) return ApiError::kWrongThread;
  return writing_->write(word);
}

ApiError DeferredReply::write_words(std::span<const uint64_t> words) {
  if (writing_ == nullptr) return ApiError::kNoMessage;
  if (!writing_->is_current()) return ApiError::kWrongThread;
  return writing_->write_words(words);
}

// One thread's serving: the FIFO's requests, the requests held while a
// handler waited, and the completions of the thread's Clients.
class ServeLoop {
 public:
  ServeLoop(Thread& t, const std::function<void(ServerCall&)>& handler,
            const std::function<void(Client&, Completion&)>* on_completion)
      : t_(t), ep_(CallEndpoint::attach(t)), handler_(handler), on_completion_(on_completion) {
    ep_.set_serving(true);
  }
  ~ServeLoop() {
    ep_.set_serving(false);
    CallEndpoint::detach(ep_);
  }
  ServeLoop(const ServeLoop&) = delete;
  ServeLoop& operator=(const ServeLoop&) = delete;

  void run();

 private:
  // Serves one request: from the FIFO (it is the current message), or held.
  void serve(const AppHeader& h, uint64_t word, const HeldMessage* held);
  // Every completion of the thread's Clients that needs no FIFO read.
  bool deliver_held();
  bool take_fifo();
  void wait();

  Thread& t_;
  CallEndpoint& ep_;
  const std::function<void(ServerCall&)>& handler_;
  const std::function<void(Client&, Completion&)>* on_completion_;
  uint64_t strays_ = 0;        // messages not of nanopu/rpc.h
  uint64_t late_replies_ = 0;  // replies no call waited for any more
};

void ServeLoop::serve(const AppHeader& h, uint64_t word, const HeldMessage* held) {
  ServerCall call(t_, ep_);
  call.from_ = Peer{h.ip, h.context};
  call.run_ = held != nullptr ? held->run : t_.rx_run();
  call.id_ = call_id(word);
  call.request_bytes_ = h.len - 8u;
  if (held != nullptr) {
    call.buffered_ = held->payload;
    call.from_memory_ = true;
  } else {
    ep_.set_open_request(&call);
  }
  handler_(call);
  ep_.set_open_request(nullptr);
  if (!call.replied_) {
    if (call.failure_ != ServerFailure::kNone) (void)ep_.send_failed(call.from_, call.id_, call.failure_, call.run_);
    else (void)call.reply(0);  // an empty reply: no caller waits for nothing
  }
  ep_.check_open_reply();
  if (!call.from_memory_) t_.msg_done();
}

bool ServeLoop::deliver_held() {
  bool any = false;
  while (!ep_.held_requests.empty()) {
    const HeldMessage m = std::move(ep_.held_requests.front());
    ep_.held_requests.pop_front();
    serve(m.header, m.word, &m);
    any = true;
  }
  if (on_completion_ == nullptr) return any;
  Completion c;
  // By index: a completion handler may make or drop Clients.
  for (size_t i = 0; i < ep_.clients().size(); ++i) {
    Client::Impl* impl = ep_.clients()[i];
    while (i < ep_.clients().size() && ep_.clients()[i] == impl && impl->take_held(&c)) {
      (*on_completion_)(impl->owner_, c);
      ep_.check_open_reply();
      any = true;
    }
  }
  return any;
}

bool ServeLoop::take_fifo() {
  if (!t_.msgs_ready()) return false;
  const AppHeader h = AppHeader::from_word(t_.read());
  const uint64_t word = h.len >= 8 ? t_.read() : 0;
  Client::Impl* owner = nullptr;
  switch (ep_.route(nullptr, h, word, nullptr, &owner)) {
    case CallEndpoint::Route::kRequest:
      serve(h, word, nullptr);
      break;
    case CallEndpoint::Route::kOtherClient: {
      Completion c;
      if (owner->complete_from_fifo(h, word, &c) && on_completion_ != nullptr) {
        (*on_completion_)(owner->owner_, c);
        ep_.check_open_reply();
      }
      break;
    }
    case CallEndpoint::Route::kDropped:
      // A reply no call waits for is a late one (its call completed or was
      // given up: a retried call's first answer, a slow backup's); anything
      // else is not nanopu/rpc.h's at all.
      if (call_kind(word) == kReplyKind || call_kind(word) == kFailedReplyKind) {
        ++late_replies_;
      } else if (strays_++ == 0) {
        NANOPU_LOG(kWarning, "serve_calls on context %u: dropped a message from %s:%u that is not a call "
                   "request (nanopu/rpc.h; a client must use rpc::Client)",
                   t_.context(), format_ipv4(h.ip).c_str(), h.context);
      }
      break;
    default:
      break;
  }
  return true;
}

void ServeLoop::wait() {
  uint64_t due = UINT64_MAX;
  for (Client::Impl* c : ep_.clients()) due = std::min(due, c->next_deadline_ns());
  if (due == UINT64_MAX) {
    (void)t_.wait();
    return;
  }
  const uint64_t now = t_.now_ns();
  if (due > now) (void)t_.wait_for(std::chrono::nanoseconds(due - now));
}

void ServeLoop::run() {
  while (!t_.stopping()) {
    if (deliver_held()) continue;
    if (take_fifo()) continue;
    ep_.take_notices();
    bool held = false;
    for (Client::Impl* c : ep_.clients()) held |= c->has_held();
    if (held) continue;
    wait();
  }
  if (strays_ != 0)
    NANOPU_LOG(kWarning, "serve_calls on context %u: %llu messages that were not call requests dropped",
               t_.context(), static_cast<unsigned long long>(strays_));
  if (late_replies_ != 0)
    NANOPU_LOG(kInfo, "serve_calls on context %u: %llu late replies dropped (their calls had completed or been given up)",
               t_.context(), static_cast<unsigned long long>(late_replies_));
}

bool serve_calls(Thread& t, uint16_t context, uint8_t priority, const std::function<void(ServerCall&)>& handler) {
  if (!t.bind(context, priority).ok()) return false;
  ServeLoop(t, handler, nullptr).run();
  return true;
}

void serve_calls(Thread& t, const std::function<void(ServerCall&)>& handler,
                 const std::function<void(Client&, Completion&)>& on_completion) {
  ServeLoop(t, handler, &on_completion).run();
}

}  // namespace nanopu::rpc
