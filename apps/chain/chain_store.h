// A chain replica's state: 16-byte keys to 64-byte values, each with the
// version of the write that put it there (64 bits, given by the head: one
// order per key, never wrapping in any run).
//
// The index is absl::flat_hash_map, a kept library: unlike the key-value
// service's lossy MICA table, a replica must never drop a key it has
// acknowledged (the tail's ACK promises every replica holds it).
#pragma once

#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/hash/hash.h"
#include "apps/chain/chain_protocol.h"

namespace nanopu::apps {

// A replica's declared work per request beyond moving its words, for the
// timing model's modelled column: one hash-map probe or insert of a 16-byte
// key and a 64-byte copy, estimated at 40 cycles of the prototype's 3.2 GHz
// in-order core (nanopu's estimate, not measured on nanoPU hardware).
inline constexpr double kChainStoreCycles = 40;

class ChainStore {
 public:
  enum class Write : uint8_t { kApplied, kStale };  // kStale: version not newer, nothing changed

  struct Entry {
    uint64_t version = 0;
    ChainValue value{};
  };
  // Applies a write of `version` if it is newer than the key's.
  Write write(const ChainKey& key, uint64_t version, const ChainValue& value);
  // The key's next version: what the head gives a client's write.
  [[nodiscard]] uint64_t next_version(const ChainKey& key) const;
  // The value and its version; nullptr if absent.
  [[nodiscard]] const Entry* read(const ChainKey& key) const;
  [[nodiscard]] size_t size() const { return map_.size(); }
  void clear() { map_.clear(); }
  // Every key with its entry, by key (a snapshot for a joining replica;
  // the hash map's order differs from process to process, and a simulation
  // must replay the same messages).
  [[nodiscard]] std::vector<std::pair<ChainKey, Entry>> snapshot() const;

 private:
  absl::flat_hash_map<ChainKey, Entry> map_;
};

}  // namespace nanopu::apps
