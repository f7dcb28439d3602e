// A chain replica's state: 16-byte keys to 64-byte values, each with the
// sequence number of the WRITE that put it there.
//
// The index is absl::flat_hash_map, a kept library: unlike the key-value
// service's lossy MICA table, a replica must never drop a key it has
// acknowledged (the tail's ACK promises every replica holds it).
#pragma once

#include <cstdint>

#include "absl/container/flat_hash_map.h"
#include "absl/hash/hash.h"
#include "apps/chain/chain_protocol.h"

namespace nanopu::apps {

// A replica's declared work per request beyond moving its words, for the
// timing model's modelled column: one hash-map probe or insert of a 16-byte
// key and a 64-byte copy, estimated at 40 cycles of the prototype's 3.2 GHz
// in-order core (nanopu's estimate, not measured on nanoPU hardware).
inline constexpr double kChainStoreCycles = 40;

// Whether 8-bit sequence number a is newer than b (RFC 1982): within 127
// steps ahead, wrapping. Equal is not newer.
[[nodiscard]] constexpr bool seq_newer(uint8_t a, uint8_t b) {
  return a != b && static_cast<uint8_t>(a - b) < 128;
}

class ChainStore {
 public:
  enum class Write : uint8_t { kApplied, kStale };  // kStale: seq not newer, nothing changed

  Write write(const ChainKey& key, uint8_t seq, const ChainValue& value);
  // The value and its seq; nullptr if absent.
  struct Entry {
    uint8_t seq = 0;
    ChainValue value{};
  };
  [[nodiscard]] const Entry* read(const ChainKey& key) const;
  [[nodiscard]] size_t size() const { return map_.size(); }

 private:
  absl::flat_hash_map<ChainKey, Entry> map_;
};

}  // namespace nanopu::apps
