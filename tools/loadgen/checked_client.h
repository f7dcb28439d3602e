// The request engine of nanopu-loadgen's key-value style clients (kv,
// chain) on the shared schedule (load_schedule.h): an unmeasured preload
// that writes every key once, then a uniform write/read mix, replies
// matched to requests by sent_time (unique per request) and checked by the
// service's client.
//
// Every key's writes are numbered (versions from 1); a read is checked
// against the newest version sent and the newest acknowledged when the read
// was sent. A key has at most one write in flight: messages are not ordered
// between them (nanoPU OSDI'21 §3: each is its own RPC), so two writes of
// one key could be applied in either order, and "the newest acknowledged"
// would not be what a store that keeps the last write applied holds (a
// seeded simulation with reordering showed it: nanopu-dst).
//
// With keys shared with other clients (LoadGenOptions::shared_keys) a read
// is checked for being a whole value of its key, whoever wrote it; every
// request is recorded in the run's history when there is one
// (loadgen::Options::history: f read or write, the key's index, the
// version written or read, null for a miss), and the history's
// linearizability is the check of order (nanopu-dst).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "nanopu/seeded_draw.h"
#include "tools/loadgen/load_schedule.h"

namespace nanopu::apps {

class CheckedClient : public LoadSchedule {
 public:
  struct InFlight {
    bool write = false;
    uint32_t key = 0;
    uint32_t version = 0;      // a write: the version written
    uint32_t min_version = 0;  // a read: newest write acknowledged when it was sent
    uint64_t token = 0;        // its operation in the history
    uint64_t sent_at = 0;      // when it left (now()), for request_timeout_ns_
  };

  CheckedClient(Thread& t, const LoadGenOptions& o, uint32_t keys, double write_fraction,
                LoadGenResult* r);

  // Binds o.context, preloads (if asked), runs; sets r->error on failure.
  void run(bool preload, const std::string& preload_error);

  static uint64_t mix(uint64_t x) { return mix64(x); }
  // Word i of the value of key k at `version`: word 0 names both, the
  // others derive from them (a reply of another key or version shows).
  static uint64_t value_word(uint32_t k, uint32_t version, uint32_t i) {
    return i == 0 ? uint64_t{k} << 32 | version : mix(uint64_t{k} << 32 ^ version ^ uint64_t{i} << 52);
  }
  // Whether `value` (n words) is key k's value at a version in
  // [max(1, min_version), max_version]: what a read may return once
  // versions up to max_version were sent and min_version was acknowledged
  // before it left. Shared by the kv, chain and raft clients.
  static bool is_value_between(const uint64_t* value, uint32_t n, uint32_t k, uint32_t min_version,
                               uint32_t max_version) {
    const auto v = static_cast<uint32_t>(value[0]);
    bool ok = value[0] >> 32 == k && v >= std::max<uint32_t>(1, min_version) && v <= max_version;
    for (uint32_t i = 1; ok && i < n; ++i) ok = value[i] == value_word(k, v, i);
    return ok;
  }

 protected:
  // Writes one request (header and words) for f, with sent_time sent_tsc;
  // false if the thread had no buffer.
  virtual bool send(const InFlight& f, uint64_t sent_tsc) = 0;
  // Whether a reply (its header and first words, zero-filled) answers f
  // correctly; a correct write acknowledgement is recorded by the engine.
  virtual bool check(const AppHeader& h, const uint64_t* words, const InFlight& f) = 0;
  // Forget the preload's counts.
  virtual void reset_counts() = 0;
  // Whether a reply refuses the request (chain: not the replica it should
  // go to): the request ends, counted given up, failed in the history (it
  // did nothing); the client may learn where to go from it.
  virtual bool refused(const AppHeader& h, const uint64_t* words, const InFlight& f) {
    (void)h, (void)words, (void)f;
    return false;
  }
  // A request unanswered for request_timeout_ns_ (when set) ends: counted
  // lost, info in the history; the client may send the next elsewhere.
  virtual void timed_out(const InFlight& f) { (void)f; }
  uint64_t request_timeout_ns_ = 0;
  // The request's length, for a service whose reply comes from the core
  // that served it (the modelled column per message); 0 otherwise.
  [[nodiscard]] virtual uint32_t request_bytes(const InFlight&) const { return 0; }

  // A read's check() sets it: the version its reply carried, 0 for a miss.
  uint32_t read_version_ = 0;
  // The versions a read may return: this client's [min, max] alone, or
  // any (keys shared with other writers).
  [[nodiscard]] uint32_t lowest_version(const InFlight& f) const { return o_.shared_keys ? 0 : f.min_version; }
  [[nodiscard]] uint32_t highest_version(uint32_t key) const { return o_.shared_keys ? UINT32_MAX : sent_version_[key]; }

  static constexpr uint32_t kMaxReplyWords = 80;
  std::vector<uint32_t> sent_version_, acked_version_;
  // Set by a client whose replies may come from a host it has not sent to
  // (chain: the tail acknowledges a WRITE sent to the head): the preload
  // first READs every key there, any value accepted, so that host has
  // heard from this run before it answers it. A host that last heard this
  // client's previous run names that run in what it sends (docs/wire.md,
  // dst_incarnation), and the new run refuses it: the acknowledgement lost.
  bool read_first_ = false;

 private:
  bool issue(bool write, uint32_t key, uint64_t sent_tsc);
  bool send_next(uint64_t sent_tsc) override;
  [[nodiscard]] bool write_in_flight(uint32_t key) const { return writes_in_flight_[key] != 0; }
  void receive_all(bool measure) override;
  [[nodiscard]] size_t in_flight_count() const override { return in_flight_.size(); }
  void forget_in_flight() override;
  // "" when every key was written (and read first, read_first_) with
  // every reply right; else what went wrong.
  [[nodiscard]] std::string preload_keys();
  [[nodiscard]] bool touch_every_key(bool write);

  void record_end(const InFlight& f, bool ok);
  void end_overdue();
  [[nodiscard]] uint64_t next_timer_ns() const override;
  uint32_t keys_;
  HistoryClient hc_;
  double write_fraction_;
  absl::flat_hash_map<uint64_t, InFlight> in_flight_;  // by sent_time
  std::vector<uint16_t> writes_in_flight_ = std::vector<uint16_t>(keys_, 0);  // by key: 0 or 1 (send_next keeps it so)
};

}  // namespace nanopu::apps
