#include "apps/setint/setint_service.h"

#include <algorithm>

#include "apps/compute/status_words.h"

namespace nanopu::apps {

InvertedIndex::InvertedIndex(const Corpus& c)
    : documents_(static_cast<uint32_t>(c.docs.size())), postings_(c.words.size()) {
  for (uint32_t d = 0; d < c.docs.size(); ++d)
    for (uint32_t w : c.docs[d]) postings_[w].push_back(d);  // d ascends: each list is sorted
}

uint64_t InvertedIndex::intersect(std::span<const uint64_t> query, std::vector<uint32_t>* out) const {
  // Shortest list first: the result is no longer than it, and each later
  // list only filters it (a merge, as a search engine's conjunctive query).
  const std::vector<uint32_t>* lists[kSetMaxWords] = {};
  if (query.empty() || query.size() > kSetMaxWords) {  // callers check; never read past lists[]
    out->clear();
    return 0;
  }
  size_t n = 0;
  for (uint64_t w : query) lists[n++] = &postings_[w];
  std::sort(lists, lists + n, [](const auto* a, const auto* b) { return a->size() < b->size(); });
  out->assign(lists[0]->begin(), lists[0]->end());
  uint64_t visited = out->size();
  for (size_t i = 1; i < n && !out->empty(); ++i) {
    const std::vector<uint32_t>& l = *lists[i];
    size_t keep = 0, j = 0;
    for (uint32_t d : *out) {
      while (j < l.size() && l[j] < d) ++j;
      if (j == l.size()) break;
      if (l[j] == d) (*out)[keep++] = d;
    }
    visited += j + 1;
    out->resize(keep);
  }
  return visited;
}

Outcome SetIntersectionService::answer(std::span<const uint64_t> r, std::vector<uint64_t>* reply) {
  if (r.size() < 3) return error_reply(r, kErrBadLength, reply);
  const uint64_t count = r[2];
  if (count == 0 || count > kSetMaxWords) return error_reply(r, kErrBadCount, reply);
  if (r.size() != 3 + count) return error_reply(r, kErrBadLength, reply);
  reply->assign({r[0], r[1], 0});
  const std::span<const uint64_t> query = r.subspan(3, count);
  for (uint64_t w : query)
    if (w >= index_->words()) return Outcome::kAnswered;  // an unknown word: no document holds it
  const uint64_t visited = index_->intersect(query, &scratch_);
  work_cycles_ = kSetCyclesPerWord * static_cast<double>(count) + kSetCyclesPerPosting * static_cast<double>(visited);
  (*reply)[2] = scratch_.size();
  reply->insert(reply->end(), scratch_.begin(), scratch_.end());
  return Outcome::kAnswered;
}

}  // namespace nanopu::apps
