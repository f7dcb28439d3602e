// Which transport each peer last sent us DATA in, so that a message to it
// goes in the protocol it speaks: a host whose own messages use Homa still
// answers the nanoPU's tester (NDP only) in NDP (docs/design.md §2,
// "Transports"). Direct-mapped by IPv4 address like PeerRuns: a collision
// only means the host's own default for that peer.
#pragma once

#include <array>
#include <cstdint>

namespace nanopu {

class PeerProtocols {
 public:
  static constexpr uint32_t kPeers = 256;

  explicit PeerProtocols(uint8_t fallback) : fallback_(fallback) {}

  void heard(uint32_t peer_ip, uint8_t protocol) {
    Entry& e = table_[slot(peer_ip)];
    e.ip = peer_ip;
    e.protocol = protocol;
  }
  [[nodiscard]] uint8_t lookup(uint32_t peer_ip) const {
    const Entry& e = table_[slot(peer_ip)];
    return e.ip == peer_ip && e.protocol != 0 ? e.protocol : fallback_;
  }

 private:
  struct Entry {
    uint32_t ip = 0;
    uint8_t protocol = 0;
  };
  [[nodiscard]] static uint32_t slot(uint32_t ip) { return (ip * 0x9e3779b1u) >> 24; }

  uint8_t fallback_;
  std::array<Entry, kPeers> table_{};
};

}  // namespace nanopu
