// The request engine shared by nanopu-loadgen's stateful clients (kv,
// chain): open loop (Poisson, sent_time the scheduled time) or closed loop,
// an unmeasured preload that writes every key once, replies matched to
// requests by sent_time (unique per request) and checked by the service's
// client, losses and give-ups counted as in the echo engine (loadgen.h).
//
// Every key's writes are numbered (versions from 1); a read is checked
// against the newest version sent and the newest acknowledged when the read
// was sent.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "apps/loadgen/loadgen.h"

namespace nanopu::apps {

class CheckedClient {
 public:
  struct InFlight {
    bool write = false;
    uint32_t key = 0;
    uint32_t version = 0;      // a write: the version written
    uint32_t min_version = 0;  // a read: newest write acknowledged when it was sent
  };

  CheckedClient(Thread& t, const LoadGenOptions& o, uint32_t keys, double write_fraction,
                LoadGenResult* r);
  virtual ~CheckedClient() = default;
  CheckedClient(const CheckedClient&) = delete;
  CheckedClient& operator=(const CheckedClient&) = delete;

  // Binds o.context, preloads (if asked), runs; sets r->error on failure.
  void run(bool preload, const std::string& preload_error);

  static uint64_t mix(uint64_t x) {  // splitmix64
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
  }
  // Word i of the value of key k at `version`: word 0 names both, the
  // others derive from them (a reply of another key or version shows).
  static uint64_t value_word(uint32_t k, uint32_t version, uint32_t i) {
    return i == 0 ? uint64_t{k} << 32 | version : mix(uint64_t{k} << 32 ^ version ^ uint64_t{i} << 52);
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

  static constexpr uint32_t kMaxReplyWords = 80;
  Thread& t_;
  const LoadGenOptions& o_;
  LoadGenResult* r_;
  std::vector<uint32_t> sent_version_, acked_version_;

 private:
  bool issue(bool write, uint32_t key, uint64_t sent_tsc);
  void receive_all(bool measure);
  [[nodiscard]] bool preload_keys();
  void measure();
  [[nodiscard]] uint64_t given_up() const { return t_.tx_failures() - failures_before_; }

  uint32_t keys_;
  double write_fraction_;
  std::mt19937_64 rng_;
  double hz_;
  absl::flat_hash_map<uint64_t, InFlight> in_flight_;  // by sent_time
  uint64_t last_sent_tsc_ = 0;
  uint64_t last_reply_ = 0;
  uint64_t failures_before_ = 0;
  uint64_t given_up_before_ = 0;  // counted before in_flight_ was last cleared
};

}  // namespace nanopu::apps
