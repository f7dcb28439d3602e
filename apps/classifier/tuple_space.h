// Tuple space search (Srinivasan, Suri and Varghese, "Packet Classification
// using Tuple Space Search", SIGCOMM'99), with the priority-sorted tuples
// Open vSwitch uses: rules are grouped by their (source, destination)
// prefix-length pair; each group hashes its rules on the masked addresses,
// and a bucket's few rules are checked for ports and protocol. Groups are
// searched in order of their best rule, and the search stops when no later
// group can beat the match in hand.
#pragma once

#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "apps/classifier/rule_set.h"

namespace nanopu::apps {

inline constexpr uint32_t kNoRule = ~uint32_t{0};

class TupleSpace {
 public:
  explicit TupleSpace(std::vector<Rule> rules);
  // The first (highest-priority) rule `h` matches, or kNoRule; *probes
  // counts the hash probes and rules checked (the declared work).
  [[nodiscard]] uint32_t classify(const Header& h, uint32_t* probes = nullptr) const;
  [[nodiscard]] size_t tuples() const { return tuples_.size(); }
  [[nodiscard]] const std::vector<Rule>& rules() const { return rules_; }

 private:
  struct Tuple {
    uint8_t src_len = 0, dst_len = 0;
    uint32_t best = kNoRule;  // its highest-priority rule
    absl::flat_hash_map<uint64_t, std::vector<uint32_t>> buckets;  // masked addresses -> rule ids, ascending
  };
  std::vector<Rule> rules_;
  std::vector<Tuple> tuples_;  // by best, ascending
};

}  // namespace nanopu::apps
