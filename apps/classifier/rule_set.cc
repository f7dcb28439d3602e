#include "apps/classifier/rule_set.h"

#include "nanopu/seeded_draw.h"

namespace nanopu::apps {
namespace {

// One draw from weights summing to 100.
template <size_t N>
size_t pick(SeededDraw& rng, const uint32_t (&weights)[N]) {
  uint64_t x = rng() % 100;
  for (size_t i = 0; i < N; ++i) {
    if (x < weights[i]) return i;
    x -= weights[i];
  }
  return N - 1;
}

constexpr uint8_t kLens[] = {0, 8, 16, 24, 28, 32};
constexpr uint32_t kSrcLenWeights[] = {15, 5, 20, 25, 5, 30};
constexpr uint32_t kDstLenWeights[] = {5, 5, 10, 20, 10, 50};
constexpr uint16_t kWellKnown[] = {20, 21, 22, 23, 25, 53, 80, 110, 123, 143, 161, 443, 993, 3306, 5432, 8080};

void draw_ports(SeededDraw& rng, uint16_t* lo, uint16_t* hi, bool destination) {
  constexpr uint32_t kSrcKinds[] = {80, 5, 10, 5};  // any, one, ephemeral, privileged
  constexpr uint32_t kDstKinds[] = {35, 45, 10, 10};
  switch (pick(rng, destination ? kDstKinds : kSrcKinds)) {
    case 0: *lo = 0, *hi = 0xffff; break;
    case 1: *lo = *hi = kWellKnown[rng() % std::size(kWellKnown)]; break;
    case 2: *lo = 1024, *hi = 0xffff; break;
    default: *lo = 0, *hi = 1023; break;
  }
}

}  // namespace

std::vector<Rule> generate_rules(uint32_t count, uint64_t seed) {
  SeededDraw rng(seed);
  std::vector<uint32_t> sites(64);  // /16 networks the addresses come from
  for (uint32_t& s : sites) s = static_cast<uint32_t>(rng()) & 0xffff0000u;
  std::vector<Rule> rules(count);
  for (Rule& r : rules) {
    r.src_len = kLens[pick(rng, kSrcLenWeights)];
    r.dst_len = kLens[pick(rng, kDstLenWeights)];
    r.src_ip = (sites[rng() % sites.size()] | (static_cast<uint32_t>(rng()) & 0xffff)) & prefix_mask(r.src_len);
    r.dst_ip = (sites[rng() % sites.size()] | (static_cast<uint32_t>(rng()) & 0xffff)) & prefix_mask(r.dst_len);
    draw_ports(rng, &r.src_lo, &r.src_hi, false);
    draw_ports(rng, &r.dst_lo, &r.dst_hi, true);
    constexpr uint32_t kProtoWeights[] = {60, 25, 5, 10};  // TCP, UDP, ICMP, any
    const size_t p = pick(rng, kProtoWeights);
    r.any_proto = p == 3;
    r.proto = p == 0 ? 6 : p == 1 ? 17 : p == 2 ? 1 : 0;
  }
  return rules;
}

bool matches(const Rule& r, const Header& h) {
  return (h.src_ip & prefix_mask(r.src_len)) == r.src_ip && (h.dst_ip & prefix_mask(r.dst_len)) == r.dst_ip &&
         h.src_port >= r.src_lo && h.src_port <= r.src_hi && h.dst_port >= r.dst_lo && h.dst_port <= r.dst_hi &&
         (r.any_proto || h.proto == r.proto);
}

}  // namespace nanopu::apps
