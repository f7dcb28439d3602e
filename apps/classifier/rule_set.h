// The packet classifier's rules (nanoPU OSDI'21 Table 1): 5-tuple rules in
// the shape of ClassBench's access-control lists (Taylor and Turner,
// "ClassBench: A Packet Classification Benchmark", INFOCOM'05): source and
// destination prefixes, source and destination port ranges, a protocol or
// a wildcard; a rule's id is its priority (0 first), as a ClassBench file
// lists them. ClassBench's seed files are not in Debian, so nanopu draws
// rules from its own generator (generate_rules), whose distributions are
// chosen to match the seeds' published character: prefix lengths mostly
// /32, /24 and /16 with some wildcards; ports wildcard, one well-known
// port, or the two ephemeral/privileged ranges; TCP most often. Addresses
// come from a pool of /16 sites so that rules overlap as real ACLs do.
#pragma once

#include <cstdint>
#include <vector>

namespace nanopu::apps {

struct Rule {
  uint32_t src_ip = 0, dst_ip = 0;       // prefix bits; the rest zero
  uint8_t src_len = 0, dst_len = 0;      // prefix lengths 0..32
  uint16_t src_lo = 0, src_hi = 0xffff;  // inclusive port ranges
  uint16_t dst_lo = 0, dst_hi = 0xffff;
  uint8_t proto = 0;
  bool any_proto = true;
};

struct Header {
  uint32_t src_ip = 0, dst_ip = 0;
  uint16_t src_port = 0, dst_port = 0;
  uint8_t proto = 0;
};

inline constexpr uint32_t kDefaultRules = 10000;
inline constexpr uint64_t kRuleSeed = 0x434c'4153'5342'454eull;  // "CLASSBEN"

[[nodiscard]] std::vector<Rule> generate_rules(uint32_t count, uint64_t seed = kRuleSeed);

[[nodiscard]] constexpr uint32_t prefix_mask(uint8_t len) {
  return len == 0 ? 0 : ~uint32_t{0} << (32 - len);
}
[[nodiscard]] bool matches(const Rule& r, const Header& h);

// Message words of a header tuple (docs/apps.md):
//   word 0  src_ip << 32 | dst_ip
//   word 1  src_port << 48 | dst_port << 32 | proto
// a word 1 with other bits set is malformed.
[[nodiscard]] inline uint64_t header_word0(const Header& h) { return uint64_t{h.src_ip} << 32 | h.dst_ip; }
[[nodiscard]] inline uint64_t header_word1(const Header& h) {
  return uint64_t{h.src_port} << 48 | uint64_t{h.dst_port} << 32 | h.proto;
}

}  // namespace nanopu::apps
