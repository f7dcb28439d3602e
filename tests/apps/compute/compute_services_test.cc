// The compute services' algorithms against plain references, without a
// Thread: tuple space search equals a linear scan of the rules, the
// inverted index's intersection equals a scan of every document, the INT
// collector counts a flow's reports exactly and rejects what its subset
// does not cover, HD search finds a stored vector at distance 0.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <random>

#include "apps/classifier/classifier_service.h"
#include "apps/compute/status_words.h"
#include "apps/hdsearch/hd_service.h"
#include "apps/inttel/int_collector.h"
#include "apps/inttel/int_record.h"
#include "apps/setint/setint_service.h"

namespace nanopu::apps {
namespace {

uint32_t linear(const std::vector<Rule>& rules, const Header& h) {
  for (uint32_t id = 0; id < rules.size(); ++id)
    if (matches(rules[id], h)) return id;
  return kNoRule;
}

TEST(TupleSpaceTest, EqualsALinearScanOverTenThousandRules) {
  const TupleSpace space(generate_rules(kDefaultRules));
  ASSERT_EQ(space.rules().size(), kDefaultRules);
  EXPECT_GT(space.tuples(), 10u);
  std::mt19937_64 rng(3);
  uint32_t matched = 0, probes_total = 0;
  for (int i = 0; i < 20000; ++i) {
    Header h{static_cast<uint32_t>(rng()), static_cast<uint32_t>(rng()), static_cast<uint16_t>(rng()),
             static_cast<uint16_t>(rng()), static_cast<uint8_t>(rng() % 3 == 0 ? 17 : 6)};
    if (i % 2 == 0) {  // inside a rule's prefixes, so that overlapping rules compete
      const Rule& r = space.rules()[rng() % kDefaultRules];
      h.src_ip = r.src_ip | (h.src_ip & ~prefix_mask(r.src_len));
      h.dst_ip = r.dst_ip | (h.dst_ip & ~prefix_mask(r.dst_len));
    }
    uint32_t probes = 0;
    const uint32_t got = space.classify(h, &probes);
    ASSERT_EQ(got, linear(space.rules(), h)) << i;
    matched += got != kNoRule;
    probes_total += probes;
  }
  EXPECT_GT(matched, 5000u) << "the headers drawn inside rules mostly match";
  EXPECT_LT(probes_total / 20000, 200u) << "far fewer probes than rules";
}

// At the paper's scale (the default: 100 documents, 200 words) and over
// the whole corpus.
class InvertedIndexTest : public ::testing::TestWithParam<std::pair<uint32_t, uint32_t>> {};

TEST_P(InvertedIndexTest, IntersectionEqualsAScanOfEveryDocument) {
  absl::StatusOr<Corpus> c = load_corpus(kDefaultCorpusDir, GetParam().first, GetParam().second);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->docs.size(), GetParam().first ? GetParam().first : c->docs.size());
  EXPECT_GT(c->docs.size(), 50u);
  if (GetParam().second) {
    EXPECT_EQ(c->words.size(), GetParam().second);
  }
  const InvertedIndex index(*c);
  std::mt19937_64 rng(5);
  std::vector<uint32_t> got;
  size_t nonempty = 0;
  for (int i = 0; i < 3000; ++i) {
    std::vector<uint64_t> q(1 + rng() % kSetMaxWords);
    for (uint64_t& w : q) w = rng() % 2 ? rng() % 20 : rng() % index.words();
    (void)index.intersect(q, &got);
    std::vector<uint32_t> want;
    for (uint32_t d = 0; d < c->docs.size(); ++d)
      if (std::all_of(q.begin(), q.end(), [&](uint64_t w) {
            return std::binary_search(c->docs[d].begin(), c->docs[d].end(), static_cast<uint32_t>(w));
          }))
        want.push_back(d);
    ASSERT_EQ(got, want) << i;
    nonempty += !want.empty();
  }
  EXPECT_GT(nonempty, 300u);
}

INSTANTIATE_TEST_SUITE_P(Scales, InvertedIndexTest,
                         ::testing::Values(std::pair<uint32_t, uint32_t>{kDefaultDocuments, kDefaultWords},
                                           std::pair<uint32_t, uint32_t>{0, 0}));

TEST(CorpusTest, AMissingDirectoryOrTooManyDocumentsIsAnError) {
  EXPECT_FALSE(load_corpus("/nonexistent/nanopu-corpus").ok());
  EXPECT_FALSE(load_corpus(kDefaultCorpusDir, 1'000'000, 0).ok());
}

std::vector<uint64_t> int_report(uint64_t flow, const std::vector<IntHop>& hops) {
  std::vector<uint64_t> r = {0, 1, flow, 6, int_shim_word(static_cast<uint32_t>(hops.size())), int_md_word(0)};
  for (const IntHop& h : hops) {
    r.push_back(int_hop_word0(h));
    r.push_back(int_hop_word1(h));
  }
  return r;
}

TEST(IntCollectorTest, PathLatencyBottleneckAndExactFlowCounts) {
  IntCollector c(3);
  std::vector<uint64_t> reply;
  const std::vector<IntHop> hops = {{7, 1, 2, 100, 0, 10}, {9, 3, 4, 400, 1, 99}, {11, 5, 6, 400, 2, 5}};
  for (uint64_t i = 1; i <= 4; ++i) {
    ASSERT_EQ(c.answer(int_report(42, hops), &reply), Outcome::kAnswered);
    EXPECT_EQ(reply, (std::vector<uint64_t>{0, 1, 900, 9, 99, i, i >= 3 ? 1u : 0u}));
  }
  ASSERT_EQ(c.answer(int_report(43, hops), &reply), Outcome::kAnswered);
  EXPECT_EQ(reply[5], 1u) << "another flow starts its own count";
  std::vector<uint64_t> bad = int_report(42, hops);
  bad[5] ^= uint64_t{1} << 16;  // an instruction outside the subset
  EXPECT_EQ(c.answer(bad, &reply), Outcome::kError);
  EXPECT_EQ(reply[3], kErrBadValue);
  bad = int_report(42, hops);
  bad.pop_back();
  EXPECT_EQ(c.answer(bad, &reply), Outcome::kError);
  EXPECT_EQ(reply[3], kErrBadLength);
  bad = int_report(42, std::vector<IntHop>(kIntMaxHops + 1));
  EXPECT_EQ(c.answer(bad, &reply), Outcome::kError);
  EXPECT_EQ(reply[3], kErrBadCount);
}

TEST(HdSearchTest, AStoredVectorIsItsOwnNearestNeighbour) {
  HdSearchService s;
  std::vector<uint64_t> req = {0, 1, kHdDims}, reply;
  for (uint32_t k = 0; k < kHdDims; ++k) req.push_back(std::bit_cast<uint64_t>(hd_vectors()[77 * kHdDims + k]));
  ASSERT_EQ(s.answer(req, &reply), Outcome::kAnswered);
  EXPECT_EQ(reply, (std::vector<uint64_t>{0, 1, 77, std::bit_cast<uint64_t>(0.0)}));
  req[2] = kHdDims - 1;
  EXPECT_EQ(s.answer(req, &reply), Outcome::kError);
  EXPECT_EQ(reply[3], kErrBadCount);
}

}  // namespace
}  // namespace nanopu::apps
