// rpc::Client's state: its calls in flight, by id (reply matching) and by
// deadline (a min-heap, cleaned lazily), the replies and failure notices
// its thread's other readers held for it, and its history recording.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <queue>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "nanopu/history.h"
#include "nanopu/rpc.h"
#include "runtime/client/call_endpoint.h"

namespace nanopu::rpc {

class Client::Impl {
 public:
  struct Pending {
    uint64_t user = 0;
    uint32_t request_bytes = 0;
    uint64_t sent_ns = 0;
    uint64_t deadline_ns = 0;
    Peer to;
    // Recorded calls: the operation invoked, and its token in hc_.
    std::optional<HistoryOp> op;
    uint64_t token = 0;
  };
  using Deadline = std::pair<uint64_t, uint64_t>;  // (deadline_ns, id)

  Impl(Client& owner, Thread& t);
  ~Impl();

  ApiError call(Peer to, std::span<const uint64_t> words, uint32_t bytes, std::chrono::microseconds deadline,
                uint64_t user, uint64_t* id);
  bool next(Completion* c, std::chrono::microseconds timeout);
  // A completion without reading the FIFO: a reply held for this client,
  // a failure notice, a deadline passed.
  bool take_held(Completion* c);
  // The rest of a reply to this client's call `id` from the FIFO (its
  // header and call word read): true and *c filled when it completes a
  // call; false when it answers none (late, or from elsewhere: counted).
  bool complete_from_fifo(const AppHeader& h, uint64_t word, Completion* c);
  // From the thread's endpoint: a reply held in memory, a failure notice.
  void hold_reply(HeldMessage m) { mailbox_.push_back(std::move(m)); }
  void notice(const TxFailure& f) { notices_.push_back(f); }
  // A peer restarted at at_ns: every call to it sent before then is doomed
  // (its request was taken by the old run, or will be refused by the new).
  void peer_restarted(uint32_t ip, uint64_t at_ns);
  [[nodiscard]] bool has_held() const { return !mailbox_.empty() || !notices_.empty() || !doomed_.empty(); }
  [[nodiscard]] uint64_t next_deadline_ns() const;
  void abandon_all();
  void record(History* h, CallRecorder r) {
    history_ = h;
    hc_ = HistoryClient(h);
    recorder_ = std::move(r);
  }

  Client& owner_;
  Thread& t_;
  CallEndpoint& ep_;
  absl::flat_hash_map<uint64_t, Pending> pending_;  // by call id
  std::priority_queue<Deadline, std::vector<Deadline>, std::greater<>> deadlines_;
  std::vector<uint64_t> reply_;
  std::deque<HeldMessage> mailbox_;
  std::deque<TxFailure> notices_;
  std::vector<uint64_t> doomed_;  // call ids to complete with kPeerRestarted
  ClientCounters counters_;
  History* history_ = nullptr;
  HistoryClient hc_{nullptr};
  CallRecorder recorder_;

 private:
  bool take_reply(Completion* c);
  bool take_mailbox(Completion* c);
  bool take_notice(Completion* c);
  bool take_deadline(Completion* c, uint64_t now);
  // A reply's payload is in reply_; completes call `it` with it.
  void complete_reply(uint64_t id, const Pending& p, uint64_t word, uint32_t bytes, double core_ns, Completion* c);
  void complete(uint64_t id, const Pending& p, CallStatus s, uint64_t now, Completion* c);
  void record_end(const Pending& p, CallStatus s, const Completion& c, uint64_t now);
  void misuse(const char* what);
  // Runs a recorder's hook: what it returns, or (it threw) nothing, the
  // history told why, and the client records no more.
  template <typename F>
  auto guarded(F&& f) -> decltype(f());
  void recorder_failed(const std::string& what);
};

}  // namespace nanopu::rpc
