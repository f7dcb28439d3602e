#include "tools/loadgen/kv_client.h"

#include <algorithm>
#include <vector>

#include "tools/loadgen/checked_client.h"
#include "apps/mica/kv_protocol.h"

namespace nanopu::apps {
namespace {

KvKey kv_key(uint32_t k) { return {0x6b65792d00000000ull | k, CheckedClient::mix(k + 1)}; }  // "key-" + id

class KvClient : public CheckedClient {
 public:
  KvClient(Thread& t, const LoadGenOptions& o, const KvOptions& kv, LoadGenResult* r, KvResult* kr)
      : CheckedClient(t, o, kv.keys, kv.set_fraction, r), kv_(kv), kr_(kr), hashes_(kv.keys) {
    for (uint32_t k = 0; k < kv.keys; ++k) hashes_[k] = kv_key_hash(kv_key(k));
  }

 private:
  [[nodiscard]] uint16_t context_of(uint32_t key) const {
    return static_cast<uint16_t>(o_.server_context + (kv_.jbsq ? 0 : hashes_[key] % kv_.partitions));
  }
  bool send(const InFlight& f, uint64_t sent_tsc) override {
    const uint16_t len = f.write ? kKvSetBytes : kKvGetBytes;
    if (t_.write(AppHeader{o_.server_ip, context_of(f.key), len}.word()) != ApiError::kOk) return false;
    const KvKey k = kv_key(f.key);
    for (uint64_t w : {o_.service_cycles, sent_tsc, f.write ? kKvSet : kKvGet, k[0], k[1], hashes_[f.key]})
      (void)t_.write(w);
    if (f.write)
      for (uint32_t i = 0; i < kKvValueWords; ++i) (void)t_.write(value_word(f.key, f.version, i));
    if (f.write) ++kr_->sets;
    else ++kr_->gets;
    return true;
  }
  uint32_t request_bytes(const InFlight& f) const override { return f.write ? kKvSetBytes : kKvGetBytes; }

  bool check(const AppHeader& h, const uint64_t* words, const InFlight& f) override {
    // With --kv_jbsq a core may hold an older version, none, or one an
    // earlier client process left there (this one's preload SET of the key
    // reached another core): only the key and the value's integrity count.
    const uint32_t min_version = kv_.jbsq ? 0 : lowest_version(f);
    bool ok = h.ip == o_.server_ip && h.context == context_of(f.key) && words[0] == o_.service_cycles;
    if (f.write) return ok && h.len == kKvStatusReplyBytes && words[2] == kKvStored;
    if (h.len == kKvStatusReplyBytes) return ok && words[2] == kKvNotFound && min_version == 0;
    ok = ok && h.len == kKvValueReplyBytes &&
         is_value_between(words + 2, kKvValueWords, f.key, min_version, kv_.jbsq ? UINT32_MAX : highest_version(f.key));
    if (ok) ++kr_->get_hits;
    read_version_ = static_cast<uint32_t>(words[2]);
    return ok;
  }
  void reset_counts() override { kr_->sets = kr_->gets = kr_->get_hits = 0; }

  const KvOptions& kv_;
  KvResult* kr_;
  std::vector<uint64_t> hashes_;
};

}  // namespace

void run_kv_client(Thread& t, const LoadGenOptions& o, const KvOptions& kv, LoadGenResult* r,
                   KvResult* kr) {
  KvClient(t, o, kv, r, kr)
      .run(kv.preload,
           "preloading the keys failed (is a kv server serving every partition, --kv_partitions of them?)");
}

}  // namespace nanopu::apps
