#include "tools/loadgen/chain_load.h"

#include <algorithm>

#include "apps/chain/chain_config.h"
#include "apps/chain/chain_protocol.h"
#include "apps/mica/kv_protocol.h"
#include "tools/loadgen/checked_client.h"

namespace nanopu::apps {
namespace {

ChainKey chain_key(uint32_t k) { return {0x6368616900000000ull | k, CheckedClient::mix(k + 7)}; }  // "chai" + id

class ChainLoad : public CheckedClient {
 public:
  ChainLoad(Thread& t, const LoadGenOptions& o, const ChainLoadOptions& c, LoadGenResult* r,
            ChainLoadResult* cr)
      : CheckedClient(t, o, c.keys, c.write_fraction, r), c_(c), cr_(cr) {
    config_.members = c.chain;
    request_timeout_ns_ = static_cast<uint64_t>(c.retry_ms * 1e6);
    read_first_ = true;  // the tail hears from this run before it acknowledges its WRITEs
  }

 private:
  [[nodiscard]] uint64_t target(bool write) const {
    return config_.members[((write ? 0 : config_.members.size() - 1) + skip_) % config_.members.size()];
  }
  bool send(const InFlight& f, uint64_t sent_tsc) override {
    const uint64_t to = target(f.write);
    if (t_.write(AppHeader{chain_node_ip(to), chain_node_ctx(to), chain_len(f.write)}.word()) != ApiError::kOk)
      return false;
    const ChainMeta m{static_cast<uint8_t>(f.write ? kChainWrite | kChainFromClient : kChainRead),
                      static_cast<uint16_t>(o_.context), c_.client_ip};
    const ChainKey k = chain_key(f.key);
    for (uint64_t w : {o_.service_cycles, sent_tsc, m.word(), config_.epoch, uint64_t{0}, k[0], k[1], kv_key_hash(k)})
      (void)t_.write(w);
    if (f.write)
      for (uint32_t i = 0; i < kChainValueWords; ++i) (void)t_.write(value_word(f.key, f.version, i));
    if (f.write) ++cr_->writes;
    else ++cr_->reads;
    return true;
  }
  bool refused(const AppHeader&, const uint64_t* w, const InFlight&) override {
    if ((ChainMeta::from_word(w[2]).flags & kChainRefused) == 0) return false;
    ++cr_->refused;
    const std::optional<ChainConfig> c = ChainConfig::from_words({w + kChainFixedWords, kChainValueWords});
    if (c && c->epoch > config_.epoch && !c->empty()) {
      config_ = *c;
      skip_ = 0;
      ++cr_->reconfigured;
    } else {
      ++skip_;  // it knows no newer chain than ours: ask the next replica
    }
    return true;
  }
  void timed_out(const InFlight&) override { ++skip_; }  // that replica may be gone: the next one

  bool check(const AppHeader& h, const uint64_t* w, const InFlight& f) override {
    const uint64_t tail = config_.tail();
    const ChainMeta m = ChainMeta::from_word(w[2]);
    const ChainKey k = chain_key(f.key);
    // From the tail it knows; with a master running the chain (--chain_retry_ms),
    // from whichever replica is the tail now, which it may not have learned yet.
    const bool from_replica =
        (h.ip == chain_node_ip(tail) && h.context == chain_node_ctx(tail)) || c_.retry_ms > 0;
    bool ok = from_replica && w[0] == o_.service_cycles && (m.flags & kChainBad) == 0 && w[5] == k[0] &&
              w[6] == k[1] && w[4] != 0;
    skip_ = 0;  // an answer: that replica is there
    if (f.write) return ok && h.len == chain_len(false) && (m.flags & kChainWrite) != 0;
    if (m.flags & kChainNotFound) return from_replica && h.len == chain_len(false) && lowest_version(f) == 0;
    const auto v = static_cast<uint32_t>(w[kChainFixedWords]);
    ok = ok && h.len == chain_len(true) &&
         is_value_between(w + kChainFixedWords, kChainValueWords, f.key, lowest_version(f), highest_version(f.key));
    if (ok) ++cr_->read_hits;
    read_version_ = v;
    return ok;
  }
  void reset_counts() override { *cr_ = ChainLoadResult{}; }

  const ChainLoadOptions& c_;
  ChainLoadResult* cr_;
  ChainConfig config_;
  size_t skip_ = 0;  // replicas past the one it should go to that did not answer
};

}  // namespace

void run_chain_client(Thread& t, const LoadGenOptions& o, const ChainLoadOptions& c,
                      LoadGenResult* r, ChainLoadResult* cr) {
  ChainLoad(t, o, c, r, cr)
      .run(c.preload,
           "preloading the keys failed (is every replica of --chain up, running --app=chain with this --chain?)");
}

}  // namespace nanopu::apps
