#include "apps/chain/chain_store.h"

#include <algorithm>

namespace nanopu::apps {

ChainStore::Write ChainStore::write(const ChainKey& key, uint64_t version, const ChainValue& value) {
  auto [it, inserted] = map_.try_emplace(key);
  if (!inserted && version <= it->second.version) return Write::kStale;
  it->second.version = version;
  it->second.value = value;
  return Write::kApplied;
}

uint64_t ChainStore::next_version(const ChainKey& key) const {
  const auto it = map_.find(key);
  return it == map_.end() ? 1 : it->second.version + 1;
}

std::vector<std::pair<ChainKey, ChainStore::Entry>> ChainStore::snapshot() const {
  std::vector<std::pair<ChainKey, Entry>> out(map_.begin(), map_.end());
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return out;
}

const ChainStore::Entry* ChainStore::read(const ChainKey& key) const {
  const auto it = map_.find(key);
  return it == map_.end() ? nullptr : &it->second;
}

}  // namespace nanopu::apps
