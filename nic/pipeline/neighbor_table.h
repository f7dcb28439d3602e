// IPv4 → MAC learned from received frames (the design's "configured, or
// learned" next hop, docs/wire.md). Bounded so the NIC core never allocates after
// start: once full, new peers use the gateway MAC.
#pragma once

#include <cstdint>
#include <cstring>

#include "absl/container/flat_hash_map.h"
#include "lib/wire/frame.h"

namespace nanopu {

class NeighborTable {
 public:
  static constexpr size_t kMaxEntries = 4096;

  explicit NeighborTable(const wire::MacAddr& gateway) : gateway_(gateway) {
    map_.reserve(kMaxEntries);
  }

  void learn(uint32_t ip, const wire::MacAddr& mac) {
    // Packets come in runs from the same peer: skip the table for a repeat.
    if (have_last_ && ip == last_ip_ && same(mac, last_mac_)) return;
    auto it = map_.find(ip);
    if (it != map_.end()) {
      if (!same(it->second, mac)) {  // unchanged: only remembered as the last
        it->second = mac;
        ++generation_;
      }
    } else if (map_.size() < kMaxEntries) {
      map_.emplace(ip, mac);
      ++generation_;
    } else {
      return;  // full: this peer is not remembered
    }
    last_ip_ = ip;
    last_mac_ = mac;
    have_last_ = true;
  }
  // Moves on whenever an address's MAC is learned or changes: what was
  // built from lookup() before (a frame template) is stale.
  [[nodiscard]] uint64_t generation() const { return generation_; }
  [[nodiscard]] const wire::MacAddr& lookup(uint32_t ip) const {
    if (have_last_ && ip == last_ip_) return last_mac_;
    auto it = map_.find(ip);
    return it == map_.end() ? gateway_ : it->second;
  }

 private:
  // Six bytes as two loads: std::array's == calls memcmp, which the NIC
  // core's profile showed on every packet.
  static bool same(const wire::MacAddr& a, const wire::MacAddr& b) {
    uint32_t a4, b4;
    uint16_t a2, b2;
    std::memcpy(&a4, a.data(), 4);
    std::memcpy(&b4, b.data(), 4);
    std::memcpy(&a2, a.data() + 4, 2);
    std::memcpy(&b2, b.data() + 4, 2);
    return a4 == b4 && a2 == b2;
  }

  wire::MacAddr gateway_;
  uint32_t last_ip_ = 0;  // the last peer learned; its table entry equals last_mac_
  wire::MacAddr last_mac_{};
  bool have_last_ = false;
  uint64_t generation_ = 0;
  absl::flat_hash_map<uint32_t, wire::MacAddr> map_;
};

}  // namespace nanopu
