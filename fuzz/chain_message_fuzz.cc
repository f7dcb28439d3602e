// libFuzzer target for a chain replica's message parser, its store and its
// configuration words (apps/chain): any words under any claimed length.
// Invariants: no read past the words present; a message parsed as kOk has
// exactly the length its flags call for, and is a WRITE with a value or a
// READ without; the store applies a write exactly when its version is newer
// than the key's (checked against a model), and then returns that value;
// configuration words parse to a chain that writes back to the same words.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <span>
#include <vector>

#include "apps/chain/chain_config.h"
#include "apps/chain/chain_store.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace nanopu::apps;
  if (size < 3) return 0;
  const auto len = static_cast<uint16_t>(data[0] << 8 | data[1]);
  const bool short_fifo = data[2] & 1;  // fewer words present than the length claims
  data += 3;
  size -= 3;
  const uint32_t n_all = static_cast<uint32_t>(size / 8);
  const uint32_t n = short_fifo ? n_all / 2 : n_all;
  // Exactly n words on the heap: ASan catches a read past them.
  auto words = std::make_unique<uint64_t[]>(n == 0 ? 1 : n);
  if (n != 0) std::memcpy(words.get(), data, size_t{n} * 8);
  ChainMessage m;
  const ChainParse p = parse_chain_message(words.get(), n, len, &m);
  if (p == ChainParse::kOk) {
    const bool write = (m.meta.flags & kChainWrite) != 0;
    if (len != chain_len(write)) std::abort();
    if (write != m.has_value) std::abort();
    if (size_t{len} / 8 > n) std::abort();
  }
  if (p == ChainParse::kTooShort && len >= 24 && n >= 3) std::abort();

  // The words as a configuration: one that parses writes back to itself.
  if (const std::optional<ChainConfig> c = ChainConfig::from_words({words.get(), n})) {
    const std::vector<uint64_t> back = c->words();
    if (back.size() > n || std::memcmp(back.data(), words.get(), back.size() * 8) != 0) std::abort();
    if (c->pending && (c->members.size() < 2 || c->joining() != c->tail())) std::abort();
  }

  // The store against a model: the same bytes as (key, version) writes.
  ChainStore store;
  std::map<uint64_t, uint64_t> model;
  for (size_t i = 0; i + 2 <= size; i += 2) {
    const uint64_t k = data[i] & 7;
    const uint64_t version = data[i + 1];
    ChainValue v{};
    v[0] = k;
    v[1] = version;
    const auto it = model.find(k);
    const bool expect_apply = it == model.end() || version > it->second;
    const ChainStore::Write w = store.write({k, 0}, version, v);
    if ((w == ChainStore::Write::kApplied) != expect_apply) std::abort();
    if (expect_apply) model[k] = version;
    const ChainStore::Entry* e = store.read({k, 0});
    if (e == nullptr || e->version != model[k] || e->value[1] != model[k]) std::abort();
    if (store.next_version({k, 0}) != model[k] + 1) std::abort();
  }
  return 0;
}
