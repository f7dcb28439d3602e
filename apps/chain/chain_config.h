// A chain's configuration (van Renesse & Schneider, OSDI'04 §3: the master
// decides it, replicas act on it): an epoch and the replicas in order, head
// first; the last is the tail. A replica that joins is put at the end as the
// tail, `pending`: it acknowledges writes (each has passed every replica)
// but answers READs only once its predecessor has sent it everything it
// holds (chain_replica.h). It travels in a refusal's value words (clients
// learn where to go) and in the master's CONFIG calls:
//   word 0 = epoch; word 1 = n | pending << 8; words 2.. = members (chain_node)
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "apps/chain/chain_protocol.h"

namespace nanopu::apps {

// A refusal's value words hold the epoch word too: at most 6 members.
inline constexpr uint32_t kChainMaxMembers = kChainValueWords - 2;

struct ChainConfig {
  uint64_t epoch = 0;                // 0: none yet
  std::vector<uint64_t> members;     // chain_node, head first
  bool pending = false;              // the tail awaits its predecessor's snapshot

  [[nodiscard]] bool empty() const { return members.empty(); }
  // This node's index, or -1.
  [[nodiscard]] int index_of(uint64_t node) const {
    for (size_t i = 0; i < members.size(); ++i)
      if (members[i] == node) return static_cast<int>(i);
    return -1;
  }
  [[nodiscard]] bool is_head(uint64_t node) const { return !members.empty() && members.front() == node; }
  [[nodiscard]] bool is_tail(uint64_t node) const { return !members.empty() && members.back() == node; }
  [[nodiscard]] uint64_t tail() const { return members.empty() ? 0 : members.back(); }
  // Its successor (0: none) and predecessor (0: none).
  [[nodiscard]] uint64_t successor(uint64_t node) const {
    const int i = index_of(node);
    return i < 0 || static_cast<size_t>(i) + 1 >= members.size() ? 0 : members[static_cast<size_t>(i) + 1];
  }
  [[nodiscard]] uint64_t predecessor(uint64_t node) const {
    const int i = index_of(node);
    return i <= 0 ? 0 : members[static_cast<size_t>(i) - 1];
  }
  // The tail while it is brought up to date (0: none).
  [[nodiscard]] uint64_t joining() const { return pending ? tail() : 0; }

  [[nodiscard]] std::vector<uint64_t> words() const {
    std::vector<uint64_t> w = {epoch, members.size() | uint64_t{pending} << 8};
    w.insert(w.end(), members.begin(), members.end());
    return w;
  }
  // nullopt for words that are no configuration.
  [[nodiscard]] static std::optional<ChainConfig> from_words(std::span<const uint64_t> w) {
    if (w.size() < 2) return std::nullopt;
    const uint64_t n = w[1] & 0xff, pending = w[1] >> 8;
    if (n > kChainMaxMembers || w.size() < 2 + n || pending > 1 || (pending && n < 2)) return std::nullopt;
    ChainConfig c;
    c.epoch = w[0];
    c.members.assign(w.begin() + 2, w.begin() + 2 + static_cast<std::ptrdiff_t>(n));
    c.pending = pending != 0;
    return c;
  }
};

}  // namespace nanopu::apps
