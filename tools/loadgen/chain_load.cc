#include "tools/loadgen/chain_load.h"

#include <algorithm>

#include "apps/chain/chain_protocol.h"
#include "tools/loadgen/checked_client.h"
#include "apps/mica/kv_protocol.h"

namespace nanopu::apps {
namespace {

ChainKey chain_key(uint32_t k) { return {0x6368616900000000ull | k, CheckedClient::mix(k + 7)}; }  // "chai" + id

class ChainLoad : public CheckedClient {
 public:
  ChainLoad(Thread& t, const LoadGenOptions& o, const ChainLoadOptions& c, LoadGenResult* r,
            ChainLoadResult* cr)
      : CheckedClient(t, o, c.keys, c.write_fraction, r), c_(c), cr_(cr) {
    learn_versions_ = true;  // replicas keep each key's seq across clients
  }

 private:
  bool send(const InFlight& f, uint64_t sent_tsc) override {
    const uint64_t to = f.write ? c_.chain.front() : c_.chain.back();
    const auto rest = static_cast<uint8_t>(f.write ? c_.chain.size() - 1 : 0);
    if (t_.write(AppHeader{static_cast<uint32_t>(to), static_cast<uint16_t>(to >> 32),
                           chain_len(rest, f.write)}
                     .word()) != ApiError::kOk)
      return false;
    // seq: the version's low 8 bits (replicas compare them in serial arithmetic).
    const ChainMeta m{static_cast<uint8_t>(kChainFromTester | (f.write ? kChainWrite : kChainRead)),
                      static_cast<uint8_t>(f.version), rest, static_cast<uint8_t>(o_.context),
                      c_.client_ip};
    const ChainKey k = chain_key(f.key);
    for (uint64_t w : {o_.service_cycles, sent_tsc, m.word()}) (void)t_.write(w);
    for (uint32_t i = 1; i <= rest; ++i) (void)t_.write(c_.chain[i]);
    for (uint64_t w : {k[0], k[1], kv_key_hash(k)}) (void)t_.write(w);
    if (f.write)
      for (uint32_t i = 0; i < kChainValueWords; ++i) (void)t_.write(value_word(f.key, f.version, i));
    if (f.write) ++cr_->writes;
    else ++cr_->reads;
    return true;
  }
  bool check(const AppHeader& h, const uint64_t* w, const InFlight& f) override {
    const uint64_t tail = c_.chain.back();
    const ChainMeta m = ChainMeta::from_word(w[2]);
    const ChainKey k = chain_key(f.key);
    bool ok = h.ip == static_cast<uint32_t>(tail) && h.context == static_cast<uint16_t>(tail >> 32) &&
              w[0] == o_.service_cycles && (m.flags & kChainBad) == 0 && w[3] == k[0] && w[4] == k[1];
    if (f.write) return ok && h.len == chain_len(0, false) && (m.flags & kChainWrite) != 0;
    if (m.flags & kChainNotFound) return ok && h.len == chain_len(0, false) && f.min_version == 0;
    const auto v = static_cast<uint32_t>(w[6]);
    ok = ok && h.len == chain_len(0, true) && m.seq == static_cast<uint8_t>(v) &&
         is_value_between(w + 6, kChainValueWords, f.key, f.min_version, sent_version_[f.key]);
    if (ok) ++cr_->read_hits;
    if (ok) seen_version_[f.key] = std::max(seen_version_[f.key], v);
    return ok;
  }
  void reset_counts() override { cr_->reads = cr_->read_hits = cr_->writes = 0; }

  const ChainLoadOptions& c_;
  ChainLoadResult* cr_;
};

}  // namespace

void run_chain_client(Thread& t, const LoadGenOptions& o, const ChainLoadOptions& c,
                      LoadGenResult* r, ChainLoadResult* cr) {
  ChainLoad(t, o, c, r, cr)
      .run(c.preload,
           "preloading the keys failed: no acknowledgement within --drain_timeout, or wrong ones "
           "(is every replica of --chain up, running --app=chain on its context?)");
}

}  // namespace nanopu::apps
