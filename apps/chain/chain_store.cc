#include "apps/chain/chain_store.h"

namespace nanopu::apps {

ChainStore::Write ChainStore::write(const ChainKey& key, uint8_t seq, const ChainValue& value) {
  auto [it, inserted] = map_.try_emplace(key);
  if (!inserted && !seq_newer(seq, it->second.seq)) return Write::kStale;
  it->second.seq = seq;
  it->second.value = value;
  return Write::kApplied;
}

const ChainStore::Entry* ChainStore::read(const ChainKey& key) const {
  const auto it = map_.find(key);
  return it == map_.end() ? nullptr : &it->second;
}

}  // namespace nanopu::apps
