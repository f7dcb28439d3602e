// Set intersection (document search; nanoPU OSDI'21 §5.3, Figure 10): an
// inverted index over the corpus (corpus.h), one posting list of document
// ids per word; a query of 1-4 word ids is answered with the ids of the
// documents that hold every word, ascending.
//
//   request  {service_time, sent_time, count (1..4), word_id[count]}
//   reply    {service_time, sent_time, size, doc_id[size]}     len 24 + 8 size
//   error    {service_time, sent_time, kStatusError, code}     (status_words.h)
//
// A word id the index does not know matches no document (size 0).
// service_time is echoed, not spun (the MICA service's convention).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "apps/compute/word_service.h"
#include "apps/setint/corpus.h"

namespace nanopu::apps {

inline constexpr uint32_t kSetMaxWords = 4;

// Declared work for the modelled column (nanopu's estimate at the
// prototype's 3.2 GHz, not measured on nanoPU hardware): per posting-list
// entry the merge visits, a load, a compare and a branch on the in-order
// core, 3 cycles; plus a fixed 20 cycles per query word (the list lookup).
inline constexpr double kSetCyclesPerPosting = 3;
inline constexpr double kSetCyclesPerWord = 20;

class InvertedIndex {
 public:
  explicit InvertedIndex(const Corpus& c);
  [[nodiscard]] uint32_t documents() const { return documents_; }
  [[nodiscard]] uint32_t words() const { return static_cast<uint32_t>(postings_.size()); }
  [[nodiscard]] const std::vector<uint32_t>& postings(uint32_t word) const { return postings_[word]; }
  // Documents holding every word of `query` (known ids), ascending, into
  // *out; returns the posting entries visited.
  uint64_t intersect(std::span<const uint64_t> query, std::vector<uint32_t>* out) const;

 private:
  uint32_t documents_ = 0;
  std::vector<std::vector<uint32_t>> postings_;
};

class SetIntersectionService : public WordService {
 public:
  explicit SetIntersectionService(std::shared_ptr<const InvertedIndex> index) : index_(std::move(index)) {}
  [[nodiscard]] Outcome answer(std::span<const uint64_t> request, std::vector<uint64_t>* reply) override;
  [[nodiscard]] uint32_t max_reply_words() const override { return 3 + index_->documents(); }

 private:
  std::shared_ptr<const InvertedIndex> index_;
  std::vector<uint32_t> scratch_;
};

}  // namespace nanopu::apps
