// Calls: requests with replies, deadlines and per-call failure, on top of a
// Thread's messages (docs/services.md). The nanoPU model has messages, not
// calls; this is the library a service author links so that every client
// does not write request ids, matching, timeouts and give-up handling by hand.
//
// On the wire a call is two ordinary messages, each with one word after the
// application header (docs/wire.md, "Calls"):
//   bits 63..56  kind: 0xCA request, 0xCB reply, 0xCC failed reply (the
//                server took the request and could not answer it)
//   bits 55..48  a request: 0; a reply: its flags (kReplyAfterOtherWork);
//                a failed reply: why (ServerFailure)
//   bits 47..0   the call id (the client's, echoed by the server)
// A call's id is the request message's tag on its thread (Thread::tx_tag()),
// so ids are unique on a thread for its whole life, whatever number of
// Clients it holds. The transport underneath is exactly-once, so a reply is
// matched by id and by its source (the peer the call went to) whatever
// order replies come in; a reply for an id no longer waited for (its
// deadline passed, or a duplicate) is counted and dropped, never taken for
// another call's.
//
// Completions rather than continuations: a nanoPU thread already waits on one
// thing, its RX FIFO; a completion queue keeps that single wait, and the
// caller's own loop decides what to do next (Homa's homa_recv model). A
// continuation would run user code inside the library's receive loop, in the
// middle of reading the thread's FIFO. A server that calls other servers
// before it answers keeps that single wait too: serve_calls with a
// completion handler takes requests and its own calls' completions from the
// one FIFO, and a reply can wait (ServerCall::defer) until a backend's
// answer is in.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string_view>

#include "nanopu/error.h"
#include "nanopu/history.h"
#include "nanopu/thread.h"
#include "nanopu/tx_failure.h"

namespace nanopu::rpc {

inline constexpr uint8_t kRequestKind = 0xCA;
inline constexpr uint8_t kReplyKind = 0xCB;
inline constexpr uint8_t kFailedReplyKind = 0xCC;
inline constexpr uint64_t kCallIdMask = (uint64_t{1} << 48) - 1;
// Payload bytes a call may carry besides its call word.
inline constexpr uint32_t kMaxCallBytes = 65535 - 8;
// A reply's flag: it was written after its request's message was done (a
// deferred reply, or a request read while the thread waited for a call of
// its own), so its core-time stamp (Thread::sender_core_ns) covers the
// server's last step only, not the whole request.
inline constexpr uint8_t kReplyAfterOtherWork = 0x01;

[[nodiscard]] constexpr uint64_t call_word(uint8_t kind, uint64_t id, uint8_t detail = 0) {
  return uint64_t{kind} << 56 | uint64_t{detail} << 48 | (id & kCallIdMask);
}
[[nodiscard]] constexpr uint8_t call_kind(uint64_t word) { return static_cast<uint8_t>(word >> 56); }
[[nodiscard]] constexpr uint8_t call_detail(uint64_t word) { return static_cast<uint8_t>(word >> 48); }
[[nodiscard]] constexpr uint64_t call_id(uint64_t word) { return word & kCallIdMask; }

struct Peer {
  uint32_t ip = 0;
  uint16_t context = 0;
};

// Why a server could not answer a call it took (a failed reply's detail).
enum class ServerFailure : uint8_t {
  kNone = 0,
  kReplyTooLong = 1,   // the handler's reply() asked for more than a message holds
  kIncomplete = 2,     // the handler began a reply and left it short of its length
  kNoBuffers = 3,      // the server's NIC had no buffer for the reply
  kAbandoned = 4,      // a deferred reply was dropped unanswered
  kFailed = 5,         // the handler said so (ServerCall::fail, DeferredReply::fail)
  kNotAHandlerThread = 6,  // a deferred reply answered from another thread
};
[[nodiscard]] std::string_view server_failure_name(ServerFailure f);

enum class CallStatus : uint8_t {
  kOk,                // the reply is in Completion::reply
  kDeadlineExceeded,  // no reply by the call's deadline (a later one is dropped, counted)
  kNoAnswer,          // the transport gave the request up: the server is down or unreachable
  // The server restarted: its new run refused the request (GONE). Its old
  // run may have taken it before it died, the acknowledgement lost.
  kRefused,
  kNoSlot,            // the NIC had no room to send it
  // The server restarted after the request was sent (its NIC heard a new
  // run): the old run may have served it, but no reply will come. Retry only
  // what is safe to do twice.
  kPeerRestarted,
  // The server took the request and could not answer it
  // (Completion::server_failure says why): its handler ran, so what the
  // request asked may have been done.
  kServerFailed,
  // The server's NIC rejected the request unread: its context was over the
  // queue its SLO allows (Config::context_slos; NEBULA (ISCA'20) §IV-B).
  // Nothing was done; Completion::to names the server, to retry later or
  // send elsewhere (docs/services.md, "A call rejected for load").
  kRejected,
};
[[nodiscard]] std::string_view call_status_name(CallStatus s);
// How a call that did not complete kOk appears in a history: kFail when
// the request certainly did nothing (kNoSlot: never sent), kInfo when it
// may have been served (every other status).
[[nodiscard]] HistoryType history_type_of(CallStatus s);

// One finished call.
struct Completion {
  uint64_t id = 0;
  uint64_t user = 0;  // what the caller attached to the call
  CallStatus status = CallStatus::kOk;
  Peer to;            // where the request went
  // kOk: the reply's payload (its words after the call word) and length in
  // bytes. Valid until the next call to this client.
  std::span<const uint64_t> reply;
  uint32_t reply_bytes = 0;
  uint32_t request_bytes = 0;           // the request's payload bytes
  std::chrono::nanoseconds latency{0};  // request written to completion
  // kOk: the server thread's on-core time on the request, as its reply
  // says (Thread::sender_core_ns); 0 if the server did not say.
  double server_core_ns = 0;
  // kOk: the reply was written after the server did other work (it called
  // another server first): server_core_ns covers its last step only.
  bool after_other_work = false;
  ServerFailure server_failure = ServerFailure::kNone;  // kServerFailed: why
};

// What a client saw that was not a completion: counted, never silent.
struct ClientCounters {
  uint64_t calls = 0;
  uint64_t completed = 0;
  uint64_t deadlines = 0;       // completions with kDeadlineExceeded
  uint64_t failures = 0;        // completions with another status than kOk or kDeadlineExceeded
  uint64_t late_replies = 0;    // a reply for a call already completed (deadline, failure)
  uint64_t stray_messages = 0;  // a message that is no reply of this thread's calls, dropped
  uint64_t misuse = 0;          // calls refused for a bad argument (a deadline <= 0, ...)
};

// How a client's calls are written into a history (nanopu/history.h): the
// author's mapping of a call's words to Jepsen's f, key and value.
struct CallRecorder {
  // At the send: what the request is (its f, key, and the value it
  // carries); nullopt: this call is not recorded (a malformed request a
  // test sends on purpose, a call outside the history's model).
  std::function<std::optional<HistoryOp>(std::span<const uint64_t> request, uint32_t request_bytes)> invoke;
  // On a kOk completion: how it ended, from its reply (ok with the result,
  // or fail when the service refused to do it). Unset: ok, with the
  // invoke's value.
  std::function<HistoryOutcome(const HistoryOp& invoked, std::span<const uint64_t> reply, uint32_t reply_bytes)> ok;
};

class Client {
 public:
  // On a thread already bound (its context is where replies come back).
  // Turns failure notices on (Thread::watch_failures), so a request the
  // transport gives up completes with its status. A thread may hold several
  // Clients, and serve calls beside them (serve_calls with a completion
  // handler): each Client completes only its own calls.
  explicit Client(Thread& t);
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  // Sends a request of `request_bytes` (0..kMaxCallBytes) payload bytes,
  // ceil(request_bytes / 8) words of `words`, due back by `deadline` from
  // now (> 0). *id: the call's id. Errors as Thread::write_header() and
  // write() (kTooLong, kBadHeader, kNoBuffers, kNotBound, kStopped),
  // kBadLength when `words` does not hold request_bytes, kBadArgument for a
  // deadline <= 0 (nothing is sent), kWrongThread from another thread.
  ApiError call(Peer to, std::span<const uint64_t> words, uint32_t request_bytes,
                std::chrono::microseconds deadline, uint64_t user, uint64_t* id);
  // The next completion, waiting up to `timeout` for a reply, a failure
  // notice or a deadline; false when none came in that time (or the runtime
  // stops). The thread yields its core while it waits. A timeout of 0
  // looks without waiting. Wait here rather than in Thread::wait_for: a
  // reply that comes after its call's deadline is taken (and dropped) here,
  // and until then it is a message ready, for which wait_for returns at
  // once.
  [[nodiscard]] bool next(Completion* c, std::chrono::microseconds timeout);
  // Calls in flight (sent, not completed).
  [[nodiscard]] size_t in_flight() const;
  // Forgets every call in flight (their replies will count as late; a
  // recorded call's outcome is written as info).
  void abandon_all();
  [[nodiscard]] const ClientCounters& counters() const;
  [[nodiscard]] Thread& thread() { return t_; }
  // Records every call from now on into `history` (it outlives the client):
  // an invoke when sent, an ok, fail or info when completed. Each call in
  // flight is a process of its own; one that ends in info is never used
  // again. nullptr stops recording.
  void record(History* history, CallRecorder recorder);
  // When this client next has a deadline due (the thread's clock, ns);
  // UINT64_MAX: none.
  [[nodiscard]] uint64_t next_deadline_ns() const;

  class Impl;

 private:
  Thread& t_;
  std::unique_ptr<Impl> impl_;
};

// A request being served (serve_calls): read its words, then reply, or
// defer the reply.
class DeferredReply;
class CallEndpoint;
class ServerCall {
 public:
  [[nodiscard]] Peer from() const { return from_; }
  [[nodiscard]] uint64_t id() const { return id_; }
  [[nodiscard]] uint32_t request_bytes() const { return request_bytes_; }
  [[nodiscard]] uint32_t request_words() const { return (request_bytes_ + 7) / 8; }
  // The request's next payload word (Thread::read(); 0 past its end).
  [[nodiscard]] uint64_t read();
  ApiError read_words(std::span<uint64_t> words);
  // Begins the reply: `bytes` (0..kMaxCallBytes) payload bytes, written next
  // with write() or write_words(). Once per call. If it fails, or the
  // handler leaves the reply short of `bytes`, the caller gets
  // kServerFailed (never an empty kOk).
  ApiError reply(uint32_t bytes);
  ApiError write(uint64_t word) { return t_.write(word); }
  ApiError write_words(std::span<const uint64_t> words) { return t_.write_words(words); }
  // The caller gets kServerFailed (ServerFailure::kFailed) instead of a
  // reply. Once per call, before any reply().
  ApiError fail();
  // Answers later: the request's message is done when the handler returns
  // (read what you need first); the returned DeferredReply answers it from
  // this thread — in serve_calls' completion handler, typically once a
  // backend's reply is in.
  [[nodiscard]] DeferredReply defer();
  [[nodiscard]] bool replied() const { return replied_; }
  [[nodiscard]] Thread& thread() { return t_; }

 private:
  friend class ServeLoop;
  friend class CallEndpoint;
  ServerCall(Thread& t, CallEndpoint& ep) : t_(t), ep_(ep) {}
  Thread& t_;
  CallEndpoint& ep_;
  Peer from_;
  uint16_t run_ = 0;         // the caller's run (Thread::rx_run): its reply names it
  uint64_t id_ = 0;
  uint32_t request_bytes_ = 0;
  bool replied_ = false;     // a reply, a failed reply or a deferral began
  bool deferred_ = false;
  ServerFailure failure_ = ServerFailure::kNone;  // reply() failed: the caller is told this
  // A request read into memory while the thread waited on a call of its
  // own (its words here; empty: the request is the thread's current message).
  std::span<const uint64_t> buffered_;
  size_t buffered_at_ = 0;
  bool from_memory_ = false;
};

// A reply that waits: made by ServerCall::defer(), answered once, from the
// thread that took the request. Movable; dropping it unanswered sends the
// caller a failed reply (kAbandoned), counted and logged once.
class DeferredReply {
 public:
  DeferredReply() = default;
  DeferredReply(DeferredReply&& o) noexcept;
  DeferredReply& operator=(DeferredReply&& o) noexcept;
  ~DeferredReply();

  [[nodiscard]] bool pending() const { return t_ != nullptr; }
  [[nodiscard]] Peer to() const { return to_; }
  [[nodiscard]] uint64_t id() const { return id_; }
  // As ServerCall::reply: then `bytes` of payload with write() or
  // write_words(). kWrongThread from another thread than the one that took
  // the request (nothing is sent), kNoMessage once answered.
  ApiError reply(uint32_t bytes);
  ApiError write(uint64_t word);
  ApiError write_words(std::span<const uint64_t> words);
  // The caller gets kServerFailed (ServerFailure::kFailed).
  ApiError fail();

 private:
  friend class ServerCall;
  DeferredReply(Thread* t, Peer to, uint16_t run, uint64_t id);
  ApiError answer(uint8_t kind, uint32_t bytes, uint8_t detail);
  void abandon();  // unanswered: the caller is told so
  Thread* t_ = nullptr;        // null once answered
  CallEndpoint* ep_ = nullptr;  // the thread's, held while unanswered
  Thread* writing_ = nullptr;  // after reply(): the thread its words go to
  Peer to_;
  uint16_t run_ = 0;  // the caller's run, named by the reply (Thread::write_header)
  uint64_t id_ = 0;
};

// Binds `context` at `priority` and serves calls until the runtime stops:
// for each request, `handler` reads its words and replies, fails or defers
// the reply (a handler that does none of these sends an empty reply, so no
// caller waits for nothing). A message that is not a request is dropped,
// the first logged with its sender and the number when it returns. Returns
// false if the bind failed.
bool serve_calls(Thread& t, uint16_t context, uint8_t priority,
                 const std::function<void(ServerCall&)>& handler);

// The same on a thread already bound, beside the thread's own Clients:
// requests go to `handler`, and each completion of a Client of this thread
// (a call the server made to another server) to `on_completion`, on this
// thread, between requests. A handler may also wait for a call of its own
// (Client::next): requests that arrive meanwhile are kept in memory and
// served after it. Returns when the runtime stops.
void serve_calls(Thread& t, const std::function<void(ServerCall&)>& handler,
                 const std::function<void(Client&, Completion&)>& on_completion);

}  // namespace nanopu::rpc
