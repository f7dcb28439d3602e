// IPv4 → MAC learned from received frames (the design's "configured, or
// learned" next hop, WIRE.md). Bounded so the NIC core never allocates after
// start: once full, new peers use the gateway MAC.
#pragma once

#include <cstdint>

#include "absl/container/flat_hash_map.h"
#include "nic/wire/frame.h"

namespace nanopu {

class NeighborTable {
 public:
  static constexpr size_t kMaxEntries = 4096;

  explicit NeighborTable(const wire::MacAddr& gateway) : gateway_(gateway) {
    map_.reserve(kMaxEntries);
  }

  void learn(uint32_t ip, const wire::MacAddr& mac) {
    auto it = map_.find(ip);
    if (it != map_.end()) {
      it->second = mac;
    } else if (map_.size() < kMaxEntries) {
      map_.emplace(ip, mac);
    }
  }
  [[nodiscard]] const wire::MacAddr& lookup(uint32_t ip) const {
    auto it = map_.find(ip);
    return it == map_.end() ? gateway_ : it->second;
  }

 private:
  wire::MacAddr gateway_;
  absl::flat_hash_map<uint32_t, wire::MacAddr> map_;
};

}  // namespace nanopu
