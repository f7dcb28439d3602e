#include "apps/classifier/tuple_space.h"

#include <algorithm>
#include <map>

namespace nanopu::apps {

TupleSpace::TupleSpace(std::vector<Rule> rules) : rules_(std::move(rules)) {
  std::map<std::pair<uint8_t, uint8_t>, size_t> index;
  for (uint32_t id = 0; id < rules_.size(); ++id) {
    const Rule& r = rules_[id];
    auto [it, fresh] = index.try_emplace({r.src_len, r.dst_len}, tuples_.size());
    if (fresh) tuples_.push_back(Tuple{r.src_len, r.dst_len, id, {}});
    Tuple& t = tuples_[it->second];
    t.buckets[uint64_t{r.src_ip} << 32 | r.dst_ip].push_back(id);  // ids ascend: each bucket stays sorted
  }
  std::sort(tuples_.begin(), tuples_.end(), [](const Tuple& a, const Tuple& b) { return a.best < b.best; });
}

uint32_t TupleSpace::classify(const Header& h, uint32_t* probes) const {
  uint32_t best = kNoRule, work = 0;
  for (const Tuple& t : tuples_) {
    if (t.best >= best) break;  // every later tuple's rules rank below the match in hand
    ++work;
    const uint64_t key = uint64_t{h.src_ip & prefix_mask(t.src_len)} << 32 | (h.dst_ip & prefix_mask(t.dst_len));
    const auto it = t.buckets.find(key);
    if (it == t.buckets.end()) continue;
    for (uint32_t id : it->second) {
      if (id >= best) break;
      ++work;
      if (matches(rules_[id], h)) {
        best = id;
        break;
      }
    }
  }
  if (probes != nullptr) *probes = work;
  return best;
}

}  // namespace nanopu::apps
