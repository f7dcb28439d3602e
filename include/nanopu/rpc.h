// Calls: requests with replies, deadlines and per-call failure, on top of a
// Thread's messages (docs/services.md). The nanoPU model has messages, not
// calls; this is the library a service author links so that every client
// does not write request ids, matching, timeouts and give-up handling by hand.
//
// On the wire a call is two ordinary messages, each with one word after the
// application header (docs/wire.md, "Calls"):
//   bits 63..56  kind: 0xCA request, 0xCB reply
//   bits 55..48  0
//   bits 47..0   the call id (the client's, echoed by the server)
// The transport underneath is exactly-once, so a reply is matched by id
// (and by its source: the peer the call went to) whatever order replies come
// in; a reply for an id no longer waited for (its deadline passed, or a
// duplicate) is counted and dropped, never taken for another call's.
//
// Completions rather than continuations: a nanoPU thread already waits on one
// thing, its RX FIFO; a completion queue keeps that single wait, and the
// caller's own loop decides what to do next (Homa's homa_recv model). A
// continuation would run user code inside the library's receive loop, in the
// middle of reading the thread's FIFO.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string_view>

#include "nanopu/error.h"
#include "nanopu/thread.h"
#include "nanopu/tx_failure.h"

namespace nanopu::rpc {

inline constexpr uint8_t kRequestKind = 0xCA;
inline constexpr uint8_t kReplyKind = 0xCB;
inline constexpr uint64_t kCallIdMask = (uint64_t{1} << 48) - 1;
// Payload bytes a call may carry besides its call word.
inline constexpr uint32_t kMaxCallBytes = 65535 - 8;

[[nodiscard]] constexpr uint64_t call_word(uint8_t kind, uint64_t id) {
  return uint64_t{kind} << 56 | (id & kCallIdMask);
}
[[nodiscard]] constexpr uint8_t call_kind(uint64_t word) { return static_cast<uint8_t>(word >> 56); }
[[nodiscard]] constexpr uint64_t call_id(uint64_t word) { return word & kCallIdMask; }

struct Peer {
  uint32_t ip = 0;
  uint16_t context = 0;
};

enum class CallStatus : uint8_t {
  kOk,                // the reply is in Completion::reply
  kDeadlineExceeded,  // no reply by the call's deadline (a later one is dropped, counted)
  kNoAnswer,          // the transport gave the request up: the server is down or unreachable
  kRefused,           // the server restarted: its new run refused the request (GONE)
  kNoSlot,            // the NIC had no room to send it
  // The server restarted after the request was sent (its NIC heard a new
  // run): the old run may have served it, but no reply will come. Retry only
  // what is safe to do twice.
  kPeerRestarted,
};
[[nodiscard]] std::string_view call_status_name(CallStatus s);

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
};

// What a client saw that was not a completion: counted, never silent.
struct ClientCounters {
  uint64_t calls = 0;
  uint64_t completed = 0;
  uint64_t deadlines = 0;       // completions with kDeadlineExceeded
  uint64_t failures = 0;        // completions with kNoAnswer, kRefused, kNoSlot, kPeerRestarted
  uint64_t late_replies = 0;    // a reply for a call already completed (deadline, failure)
  uint64_t stray_messages = 0;  // a message that is no reply of this client's, dropped
};

class Client {
 public:
  // On a thread already bound (its context is where replies come back).
  // Turns failure notices on (Thread::watch_failures), so a request the
  // transport gives up completes with its status.
  explicit Client(Thread& t);
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  // Sends a request of `request_bytes` (0..kMaxCallBytes) payload bytes,
  // ceil(request_bytes / 8) words of `words`, due back by `deadline` from
  // now. *id: the call's id. Errors as Thread::write_header() and write()
  // (kTooLong, kBadHeader, kNoBuffers, kNotBound, kStopped), and kBadLength
  // when `words` does not hold request_bytes.
  ApiError call(Peer to, std::span<const uint64_t> words, uint32_t request_bytes,
                std::chrono::microseconds deadline, uint64_t user, uint64_t* id);
  // The next completion, waiting up to `timeout` for a reply, a failure
  // notice or a deadline; false when none came in that time (or the runtime
  // stops). The thread yields its core while it waits.
  [[nodiscard]] bool next(Completion* c, std::chrono::microseconds timeout);
  // Calls in flight (sent, not completed).
  [[nodiscard]] size_t in_flight() const;
  // Forgets every call in flight (their replies will count as late).
  void abandon_all();
  [[nodiscard]] const ClientCounters& counters() const;
  [[nodiscard]] Thread& thread() { return t_; }

 private:
  class Impl;
  Thread& t_;
  std::unique_ptr<Impl> impl_;
};

// A request being served (serve_calls): read its words, then reply.
class ServerCall {
 public:
  [[nodiscard]] Peer from() const { return from_; }
  [[nodiscard]] uint64_t id() const { return id_; }
  [[nodiscard]] uint32_t request_bytes() const { return request_bytes_; }
  [[nodiscard]] uint32_t request_words() const { return (request_bytes_ + 7) / 8; }
  // The request's next payload word (Thread::read()).
  [[nodiscard]] uint64_t read() { return t_.read(); }
  ApiError read_words(std::span<uint64_t> words) { return t_.read_words(words); }
  // Begins the reply: `bytes` (0..kMaxCallBytes) payload bytes, written next
  // with write() or write_words(). Once per call.
  ApiError reply(uint32_t bytes);
  ApiError write(uint64_t word) { return t_.write(word); }
  ApiError write_words(std::span<const uint64_t> words) { return t_.write_words(words); }
  [[nodiscard]] bool replied() const { return replied_; }
  [[nodiscard]] Thread& thread() { return t_; }

 private:
  friend bool serve_calls(Thread&, uint16_t, uint8_t, const std::function<void(ServerCall&)>&);
  explicit ServerCall(Thread& t) : t_(t) {}
  Thread& t_;
  Peer from_;
  uint64_t id_ = 0;
  uint32_t request_bytes_ = 0;
  bool replied_ = false;
};

// Binds `context` at `priority` and serves calls until the runtime stops:
// for each request, `handler` reads its words and replies (a handler that
// does not reply sends an empty reply, so no caller waits for nothing). A
// message that is not a request is dropped, the first logged with its
// sender and the number when it returns. Returns false if the bind failed.
bool serve_calls(Thread& t, uint16_t context, uint8_t priority,
                 const std::function<void(ServerCall&)>& handler);

}  // namespace nanopu::rpc
