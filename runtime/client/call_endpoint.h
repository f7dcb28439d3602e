// The calls of one thread (nanopu/rpc.h): the Clients it holds and, when it
// serves calls, its serve loop, all reading one RX FIFO. Whoever reads a
// message off the FIFO hands it to whom it belongs — a reply to the Client
// whose call it answers (call ids are request tags, unique on the thread),
// a request to the serve loop — so no reader swallows another's message,
// and failure notices go to the Client whose call they name.
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "nanopu/app_header.h"
#include "nanopu/rpc.h"
#include "nanopu/thread.h"

namespace nanopu::rpc {

// A message read off the FIFO for someone else: its header, call word and
// the words after it, in memory.
struct HeldMessage {
  AppHeader header;
  uint64_t word = 0;
  std::vector<uint64_t> payload;
  double sender_core_ns = 0;
  uint16_t run = 0;  // its sender's run (Thread::rx_run): a reply to it names it
};

// A reply begun and not yet seen complete: checked when its writer returns.
struct OpenReply {
  Peer to;
  uint64_t id = 0;
  uint64_t tag = 0;          // the reply message's tag
  uint64_t incomplete = 0;   // the thread's err_incomplete count when it began
};

class CallEndpoint {
 public:
  // The thread's endpoint, made on first use; every attach() is matched by
  // a detach(), and the last one frees it.
  static CallEndpoint& attach(Thread& t);
  static void detach(CallEndpoint& e);

  [[nodiscard]] Thread& thread() { return t_; }
  void add_client(Client::Impl* c) { clients_.push_back(c); }
  void remove_client(Client::Impl* c);
  [[nodiscard]] const std::vector<Client::Impl*>& clients() const { return clients_; }

  // Call `id` is `c`'s, in flight.
  void own(uint64_t id, Client::Impl* c) { owners_[id] = c; }
  void disown(uint64_t id) { owners_.erase(id); }
  [[nodiscard]] Client::Impl* owner(uint64_t id) const;

  // The serve loop of this thread (serve_calls), or null.
  void set_serving(bool on) { serving_ = on; }
  [[nodiscard]] bool serving() const { return serving_; }
  // The request the serve loop's handler is on, still the thread's current
  // message; null when none (or it is already held in memory).
  void set_open_request(ServerCall* c) { open_request_ = c; }
  // Before a Client reads the FIFO inside a handler: the open request's
  // unread words into memory and its message done, so the FIFO's next
  // message can be read (a thread reads one message at a time).
  void release_open_request();

  // After reading a message's header and call word off the FIFO (it is
  // the thread's current message): what it is for. kMine: a reply to
  // `reader`'s call, left on the FIFO for it; kRequest: a request and the
  // reader is the serve loop (reader == nullptr), left on the FIFO; else
  // the message is done with: held for its owner (a Client, or the serve
  // loop's requests) or, when nobody waits for it, counted on `counters`
  // (late or stray) and dropped.
  enum class Route { kMine, kOtherClient, kRequest, kHeld, kDropped };
  Route route(Client::Impl* reader, const AppHeader& h, uint64_t word, ClientCounters* counters,
              Client::Impl** other);
  // A message the FIFO holds for another reader, read into memory and done.
  [[nodiscard]] HeldMessage hold(const AppHeader& h, uint64_t word);

  // Failure notices: each to the Client whose call it names (ignored when
  // none does: a reply's, or a call long completed); a peer's restart to
  // every Client.
  void take_notices();

  // Requests read while the serve loop's handler waited on a call.
  std::deque<HeldMessage> held_requests;

  // Replies: the last begun, for the check that it was not left short.
  void began_reply(Peer to, uint64_t id);
  // If the last reply begun was left short of its length (the thread
  // dropped it as incomplete), the caller is sent a failed reply instead.
  void check_open_reply();
  // A failed reply to call `id` of `to`.
  // run: the caller's (Thread::rx_run of its request; 0: the thread's rule).
  ApiError send_failed(Peer to, uint64_t id, ServerFailure why, uint16_t run = 0);

 private:
  explicit CallEndpoint(Thread& t) : t_(t) {}
  Thread& t_;
  int users_ = 0;
  bool serving_ = false;
  ServerCall* open_request_ = nullptr;
  std::vector<uint64_t> open_request_words_;  // the open request's, once released
  std::vector<Client::Impl*> clients_;
  absl::flat_hash_map<uint64_t, Client::Impl*> owners_;
  bool has_open_reply_ = false;
  OpenReply open_reply_;
};

}  // namespace nanopu::rpc
