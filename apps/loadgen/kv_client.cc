#include "apps/loadgen/kv_client.h"

#include <rte_cycles.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "apps/mica/kv_protocol.h"

namespace nanopu::apps {
namespace {

uint64_t mix(uint64_t x) {  // splitmix64
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}
KvKey key_of(uint32_t k) { return {0x6b65792d00000000ull | k, mix(k + 1)}; }  // "key-" + id
uint64_t value_word(uint32_t k, uint32_t version, uint32_t i) {
  return i == 0 ? uint64_t{k} << 32 | version : mix(uint64_t{k} << 32 ^ version ^ uint64_t{i} << 52);
}

struct InFlight {
  bool set = false;
  uint32_t key = 0;
  uint32_t version = 0;      // SET: the version written
  uint32_t min_version = 0;  // GET: newest SET acknowledged when it was sent
};

class KvClient {
 public:
  KvClient(Thread& t, const LoadGenOptions& o, const KvOptions& kv, LoadGenResult* r, KvResult* kr)
      : t_(t), o_(o), kv_(kv), r_(r), kr_(kr), rng_(o.seed), hz_(static_cast<double>(rte_get_tsc_hz())),
        sent_version_(kv.keys, 0), acked_version_(kv.keys, 0), hashes_(kv.keys),
        failures_before_(t.tx_failures()) {
    for (uint32_t k = 0; k < kv.keys; ++k) hashes_[k] = kv_key_hash(key_of(k));
  }
  void run();

 private:
  bool send(bool set, uint32_t key, uint64_t sent_tsc);
  void receive_all(bool measure);
  [[nodiscard]] uint64_t given_up() const { return t_.tx_failures() - failures_before_; }
  [[nodiscard]] uint16_t context_of(uint32_t key) const {
    return static_cast<uint16_t>(o_.server_context + (kv_.jbsq ? 0 : hashes_[key] % kv_.partitions));
  }
  // Closed loop until every key has been written once (not measured);
  // false if the server stopped answering or answered wrongly.
  [[nodiscard]] bool preload();

  Thread& t_;
  const LoadGenOptions& o_;
  const KvOptions& kv_;
  LoadGenResult* r_;
  KvResult* kr_;
  std::mt19937_64 rng_;
  double hz_;
  std::vector<uint32_t> sent_version_, acked_version_;
  std::vector<uint64_t> hashes_;
  absl::flat_hash_map<uint64_t, InFlight> in_flight_;  // by sent_time
  uint64_t last_sent_tsc_ = 0;
  uint64_t last_reply_ = 0;
  uint64_t failures_before_;
  uint64_t given_up_before_ = 0;  // counted before in_flight_ was last cleared
};

bool KvClient::send(bool set, uint32_t key, uint64_t sent_tsc) {
  // sent_time is the request's id: strictly increasing.
  sent_tsc = std::max(sent_tsc, last_sent_tsc_ + 1);
  const uint16_t len = set ? kKvSetBytes : kKvGetBytes;
  if (t_.write(AppHeader{o_.server_ip, context_of(key), len}.word()) != ApiError::kOk) {
    ++r_->send_failures;
    return false;
  }
  last_sent_tsc_ = sent_tsc;
  InFlight f;
  f.set = set;
  f.key = key;
  if (set) f.version = ++sent_version_[key];
  else f.min_version = kv_.jbsq ? 0 : acked_version_[key];
  const KvKey k = key_of(key);
  for (uint64_t w : {o_.service_cycles, sent_tsc, set ? kKvSet : kKvGet, k[0], k[1], hashes_[key]})
    (void)t_.write(w);
  if (set)
    for (uint32_t i = 0; i < kKvValueWords; ++i) (void)t_.write(value_word(key, f.version, i));
  in_flight_[sent_tsc] = f;
  if (set) ++kr_->sets;
  else ++kr_->gets;
  return true;
}

void KvClient::receive_all(bool measure) {
  while (t_.msgs_ready()) {
    const AppHeader h = AppHeader::from_word(t_.read());
    const uint32_t n = h.payload_words();
    uint64_t words[2 + kKvValueWords] = {};
    for (uint32_t i = 0; i < n && i < 2 + kKvValueWords; ++i) words[i] = t_.read();
    t_.msg_done();
    auto it = in_flight_.find(words[1]);
    if (it == in_flight_.end()) {
      // Not in flight: a second reply to a request, or nothing we sent.
      if (words[1] != 0 && words[1] <= last_sent_tsc_) ++r_->duplicates;
      else ++r_->bad_replies;
      continue;
    }
    const InFlight f = it->second;
    in_flight_.erase(it);
    bool ok = h.ip == o_.server_ip && h.context == context_of(f.key) && words[0] == o_.service_cycles;
    if (f.set) {
      ok = ok && h.len == kKvStatusReplyBytes && words[2] == kKvStored;
      if (ok) acked_version_[f.key] = std::max(acked_version_[f.key], f.version);
    } else if (h.len == kKvStatusReplyBytes) {
      ok = ok && words[2] == kKvNotFound && f.min_version == 0;
    } else {
      const uint32_t v = static_cast<uint32_t>(words[2]);
      ok = ok && h.len == kKvValueReplyBytes && words[2] >> 32 == f.key &&
           v >= std::max<uint32_t>(1, f.min_version) && v <= sent_version_[f.key];
      for (uint32_t i = 1; ok && i < kKvValueWords; ++i) ok = words[2 + i] == value_word(f.key, v, i);
      if (ok) ++kr_->get_hits;
    }
    if (!ok) {
      ++r_->bad_replies;
      continue;
    }
    if (!measure) continue;
    ++r_->received;
    const uint64_t now = rte_rdtsc();
    last_reply_ = now;
    if (words[1] <= now)
      r_->latency_ns.record(static_cast<uint64_t>(static_cast<double>(now - words[1]) * 1e9 / hz_));
  }
}

bool KvClient::preload() {
  const auto drain = static_cast<uint64_t>(o_.drain_timeout_s * hz_);
  uint32_t k = 0;
  uint64_t last_progress = rte_rdtsc();
  while (!t_.stopping() && (k < kv_.keys || !in_flight_.empty())) {
    while (in_flight_.size() < o_.outstanding && k < kv_.keys)
      if (send(true, k, rte_rdtsc())) ++k;
      else break;
    const size_t before = in_flight_.size();
    receive_all(false);
    const uint64_t now = rte_rdtsc();
    if (in_flight_.size() != before) last_progress = now;
    else if (now - last_progress > drain) return false;  // nothing answers
    t_.idle();
  }
  // Preloading is not measured: start the counts from here.
  in_flight_.clear();
  kr_->sets = kr_->gets = kr_->get_hits = 0;
  const bool clean = r_->bad_replies == 0 && r_->duplicates == 0 && r_->send_failures == 0;
  r_->bad_replies = r_->duplicates = r_->send_failures = 0;
  failures_before_ = t_.tx_failures();
  return clean;
}

void KvClient::run() {
  if (kv_.preload && !preload()) {
    r_->error = "preloading the keys failed: no reply within --drain_timeout, or wrong replies "
                "(is a kv server serving every partition, --kv_partitions of them?)";
    return;
  }
  std::uniform_int_distribution<uint32_t> key(0, kv_.keys - 1);
  std::bernoulli_distribution is_set(kv_.set_fraction);
  std::exponential_distribution<double> gap(o_.rate > 0 ? o_.rate : 1.0);
  const uint64_t start = rte_rdtsc();
  last_reply_ = start;
  const uint64_t end = o_.count == 0 ? start + static_cast<uint64_t>(o_.duration_s * hz_) : UINT64_MAX;
  const auto drain = static_cast<uint64_t>(o_.drain_timeout_s * hz_);
  auto more = [&](uint64_t now) { return o_.count ? r_->sent < o_.count : now < end; };
  auto in_flight = [&] { return in_flight_.size() - std::min<uint64_t>(in_flight_.size(), given_up()); };
  double next = static_cast<double>(start);
  uint64_t now = start;
  while (!t_.stopping() && more(now)) {
    if (o_.rate > 0) {
      while (static_cast<double>(now) >= next && more(now)) {
        if (!send(is_set(rng_), key(rng_), static_cast<uint64_t>(next))) break;
        ++r_->sent;
        next += gap(rng_) * hz_;
      }
    } else {
      while (in_flight() < o_.outstanding && more(now)) {
        if (!send(is_set(rng_), key(rng_), rte_rdtsc())) break;
        ++r_->sent;
      }
      if (in_flight() > 0 && now - last_reply_ > drain) {  // stuck: count them lost, go on
        r_->lost += in_flight();
        given_up_before_ += given_up();
        in_flight_.clear();
        failures_before_ = t_.tx_failures();
        last_reply_ = now;
      }
    }
    receive_all(true);
    t_.idle();
    now = rte_rdtsc();
  }
  const uint64_t drain_end = now + drain;
  while (!t_.stopping() && in_flight() > 0 && now < drain_end) {
    receive_all(true);
    t_.idle();
    now = rte_rdtsc();
  }
  r_->given_up = given_up_before_ + given_up();
  r_->lost += in_flight();
  r_->elapsed_s = static_cast<double>(last_reply_ - start) / hz_;
}

}  // namespace

void run_kv_client(Thread& t, const LoadGenOptions& o, const KvOptions& kv, LoadGenResult* r,
                   KvResult* kr) {
  if (absl::Status s = t.bind(o.context, 0); !s.ok()) {
    r->error = std::string(s.message());
    return;
  }
  KvClient(t, o, kv, r, kr).run();
}

}  // namespace nanopu::apps
