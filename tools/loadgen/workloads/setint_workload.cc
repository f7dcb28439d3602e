// Set-intersection queries: 1..4 distinct word ids, each drawn from a Zipf
// distribution over the word ids (ranked by document frequency, so common
// words come up most, as in a search log); the reference answer scans
// every document for every word (no index).
#include <algorithm>
#include <cmath>

#include "absl/strings/str_format.h"
#include "tools/loadgen/workloads/workload.h"
#include "apps/setint/setint_service.h"

namespace nanopu::apps {
namespace {

class SetIntWorkload : public Workload {
 public:
  SetIntWorkload(Corpus c, double s) : corpus_(std::move(c)), index_(corpus_), s_(s) {
    cdf_.resize(corpus_.words.size());
    double sum = 0;
    for (size_t i = 0; i < cdf_.size(); ++i) cdf_[i] = sum += 1 / std::pow(i + 1.0, s);
    for (double& x : cdf_) x /= sum;
  }

  void make(SeededDraw& rng, uint64_t sent_time, std::vector<uint64_t>* req, Expected* e) override {
    const uint64_t count = 1 + rng() % kSetMaxWords;
    req->assign({0, sent_time, count});
    while (req->size() < 3 + count) {
      const auto w = std::min<uint64_t>(std::lower_bound(cdf_.begin(), cdf_.end(), rng.unit()) - cdf_.begin(),
                                        cdf_.size() - 1);
      if (std::find(req->begin() + 3, req->end(), w) == req->end()) req->push_back(w);
    }
    e->reply.assign({0, sent_time, 0});
    for (uint32_t d = 0; d < corpus_.docs.size(); ++d) {
      const std::vector<uint32_t>& doc = corpus_.docs[d];
      const bool all = std::all_of(req->begin() + 3, req->end(), [&](uint64_t w) {
        return std::binary_search(doc.begin(), doc.end(), static_cast<uint32_t>(w));
      });
      if (all) e->reply.push_back(d);
    }
    e->reply[2] = e->reply.size() - 3;
  }

  double declared_cycles(std::span<const uint64_t> req) const override {
    if (req.size() < 4) return 0;
    std::vector<uint32_t> out;
    const uint64_t visited = index_.intersect(req.subspan(3), &out);
    return kSetCyclesPerWord * static_cast<double>(req.size() - 3) + kSetCyclesPerPosting * visited;
  }

  std::string describe() const override {
    return absl::StrFormat("1-%u Zipf(%.2f) words of %zu over %zu documents", kSetMaxWords, s_,
                           corpus_.words.size(), corpus_.docs.size());
  }

 private:
  Corpus corpus_;
  InvertedIndex index_;  // for the declared work only; answers come from the scan above
  double s_;
  std::vector<double> cdf_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<Workload>> make_setint_workload(const WorkloadOptions& o) {
  absl::StatusOr<Corpus> c =
      load_corpus(o.corpus_dir.empty() ? kDefaultCorpusDir : o.corpus_dir, o.setint_documents, o.setint_words);
  if (!c.ok()) return c.status();
  return std::make_unique<SetIntWorkload>(std::move(*c), o.zipf_s);
}

}  // namespace nanopu::apps
