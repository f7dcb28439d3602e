// libFuzzer target for the key-value service's request path
// (apps/mica/kv_service_inl.h): any sequence of requests — any length, op,
// key, hash and value, truncated or not — against a small store that
// evicts and wraps. Invariants: no crash; every request is answered with a
// well-formed reply or dropped only when too short to answer; a GET that
// hits returns exactly the value of the last SET of that key and hash
// (never another key's, never a stale one).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <utility>
#include <vector>

#include "apps/mica/kv_service.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace nanopu;
  using namespace nanopu::apps;
  MicaTableParams p;
  p.buckets_log2 = 1;                                // 2 buckets x 7 ways: evictions
  p.log_bytes = 10 * (3 + kKvValueWords) * 8;        // 10 items: the log wraps
  MicaTable table(p);
  KvServiceStats stats;
  std::map<std::pair<uint64_t, uint64_t>, uint64_t> last;  // (key, hash) -> value seed
  // Each record: 5 bytes.
  for (size_t i = 0; i + 5 <= size; i += 5) {
    const uint8_t* r = data + i;
    const auto len = static_cast<uint16_t>((r[0] << 8 | r[1]) % 600);
    const uint64_t op = r[2] & 0x80 ? r[2] : (r[2] & 1) + 1;  // mostly GET/SET
    const uint64_t k = r[3] & 15;
    const KvKey key{k, ~k};
    const uint64_t hash = r[3] & 0x10 ? 7 * k : kv_key_hash(key);  // some wrong hashes
    const uint64_t seed = r[4];
    std::vector<uint64_t> words = {AppHeader{1, 2, len}.word(), 11, 22, op, key[0], key[1], hash};
    for (uint32_t w = 0; w < kKvValueWords; ++w) words.push_back(seed << 8 | w);
    // Fewer words than the length claims, sometimes (the FIFO reads zeros).
    const uint32_t present = r[4] & 1 ? static_cast<uint32_t>(words.size()) : 1 + (len + 7) / 8u;
    const uint32_t n = std::min<uint32_t>(present, static_cast<uint32_t>(words.size()));
    uint16_t got_len = 0;
    uint64_t status = ~0ull;
    const uint64_t* value = nullptr;
    const uint16_t reply = handle_kv_words(words.data(), n, &table, &stats,
                                           [&](const AppHeader& h, const uint64_t* out, uint16_t l) {
                                             if (h.ip != 1 || h.context != 2) std::abort();
                                             if (l >= 16 && (out[0] != (n > 1 ? 11u : 0u))) std::abort();
                                             got_len = l;
                                             if (l == kKvStatusReplyBytes) status = out[2];
                                             if (l == kKvValueReplyBytes) value = out + 2;
                                             if (l == kKvValueReplyBytes) {
                                               auto it = last.find({k, hash});
                                               if (it == last.end()) std::abort();  // a value never set
                                               for (uint32_t w = 0; w < kKvValueWords; ++w)
                                                 if (out[2 + w] != (it->second << 8 | w)) std::abort();
                                             }
                                           });
    if (reply != got_len) std::abort();
    if (len < 16) {
      if (reply != 0) std::abort();
      continue;
    }
    if (reply != kKvStatusReplyBytes && reply != kKvValueReplyBytes) std::abort();
    const KvCheck check = check_kv_request(len, op);
    if (check != KvCheck::kOk && status != kKvBadRequest) std::abort();
    // A SET stores what it carried: zeros past the words present.
    if (check == KvCheck::kOk && op == kKvSet) {
      if (status != kKvStored) std::abort();
      if (n >= words.size()) last[{k, hash}] = seed;
      else last.erase({k, hash});  // truncated: a value the reference does not model
    }
    (void)value;
  }
  return 0;
}
