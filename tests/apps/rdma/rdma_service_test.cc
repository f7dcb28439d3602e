// The one-sided RDMA service's request execution (apps/rdma), a pure unit:
// every op against a reference, and every kind of bad request refused
// without touching memory outside the region.
#include "apps/rdma/rdma_service.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <vector>

namespace nanopu::apps {
namespace {

struct Fixture {
  RdmaRegion region{4096};  // 512 words
  RdmaServiceStats stats;
  RdmaReply reply;
  // Runs a request {st, sent, op, addr, args...} of the length its op calls for.
  RdmaStatus run(RdmaOp op, uint64_t addr, std::vector<uint64_t> args, int len_delta = 0) {
    std::vector<uint64_t> w = {7, 9, static_cast<uint64_t>(op), addr};
    w.insert(w.end(), args.begin(), args.end());
    const uint32_t nwords = op == RdmaOp::kWrite ? static_cast<uint32_t>(args.size() - 1) : 1;
    const auto len = static_cast<uint16_t>(rdma_request_len(op, nwords) + len_delta);
    EXPECT_TRUE(execute_rdma(w.data(), static_cast<uint32_t>(w.size()), len, &region, &stats, &reply));
    return reply.status;
  }
};

TEST(RdmaServiceTest, EveryOpAgainstTheRegion) {
  Fixture f;
  EXPECT_EQ(f.run(RdmaOp::kWrite, 64, {3, 10, 11, 12}), RdmaStatus::kOk);
  EXPECT_EQ(f.reply.nwords, 0u);
  EXPECT_EQ(f.run(RdmaOp::kRead, 64, {3}), RdmaStatus::kOk);
  ASSERT_EQ(f.reply.nwords, 3u);
  EXPECT_EQ(f.reply.words[0], 10u);
  EXPECT_EQ(f.reply.words[2], 12u);
  // CAS: swaps only when expected matches; returns the old value either way.
  EXPECT_EQ(f.run(RdmaOp::kCas, 64, {99, 50}), RdmaStatus::kOk);
  EXPECT_EQ(f.reply.words[0], 10u);
  EXPECT_EQ(f.region.load(64), 10u);
  EXPECT_EQ(f.run(RdmaOp::kCas, 64, {10, 50}), RdmaStatus::kOk);
  EXPECT_EQ(f.region.load(64), 50u);
  EXPECT_EQ(f.run(RdmaOp::kFaa, 72, {5}), RdmaStatus::kOk);
  EXPECT_EQ(f.reply.words[0], 11u);
  EXPECT_EQ(f.region.load(72), 16u);
  // Indirect: the word at 0 points at 64.
  f.region.store(0, 64);
  EXPECT_EQ(f.run(RdmaOp::kIndirectRead, 0, {2}), RdmaStatus::kOk);
  ASSERT_EQ(f.reply.nwords, 2u);
  EXPECT_EQ(f.reply.words[0], 50u);
  EXPECT_EQ(f.reply.words[1], 16u);
  EXPECT_EQ(f.stats.cas_swapped, 1u);
}

// The two operations nanoPU §4.1 proposes beyond Table 2's: scan-and-read
// (the first matching key's pointer, read) and return-max (unsigned).
TEST(RdmaServiceTest, ScanAndReadAndReturnMaxAgainstTheRegion) {
  Fixture f;
  const uint64_t end = f.region.bytes();
  for (auto [a, v] : {std::pair<uint64_t, uint64_t>{64, 10}, {72, 1ull << 63}, {80, 20}, {88, 21}}) f.region.store(a, v);
  // The table at 256: (5 -> 64), (7 -> 80), (7 -> 64): the first 7 wins.
  for (auto [a, v] : {std::pair<uint64_t, uint64_t>{256, 5}, {264, 64}, {272, 7}, {280, 80}, {288, 7}, {296, 64}})
    f.region.store(a, v);
  EXPECT_EQ(f.run(RdmaOp::kScanRead, 256, {3, 7, 2}), RdmaStatus::kOk);
  ASSERT_EQ(f.reply.nwords, 2u);
  EXPECT_EQ(f.reply.words[0], 20u);
  EXPECT_EQ(f.reply.words[1], 21u);
  EXPECT_EQ(f.run(RdmaOp::kScanRead, 256, {1, 7, 1}), RdmaStatus::kNotFound) << "7 is past the first key";
  EXPECT_EQ(f.reply.nwords, 0u);
  EXPECT_EQ(f.run(RdmaOp::kScanRead, 256, {3, 5, 1}), RdmaStatus::kOk);
  EXPECT_EQ(f.reply.words[0], 10u);
  EXPECT_EQ(f.run(RdmaOp::kMax, 64, {4}), RdmaStatus::kOk);
  ASSERT_EQ(f.reply.nwords, 1u);
  EXPECT_EQ(f.reply.words[0], 1ull << 63) << "unsigned";
  EXPECT_EQ(f.run(RdmaOp::kMax, 80, {2}), RdmaStatus::kOk);
  EXPECT_EQ(f.reply.words[0], 21u);
  EXPECT_EQ(f.stats.scans, 3u);
  EXPECT_EQ(f.stats.maxes, 2u);
  // Refused: a table or words past the end, a pointer past it, sizes 0 or too large.
  EXPECT_EQ(f.run(RdmaOp::kScanRead, end - 16, {2, 7, 1}), RdmaStatus::kOutOfRange);
  f.region.store(264, end - 8);
  EXPECT_EQ(f.run(RdmaOp::kScanRead, 256, {1, 5, 2}), RdmaStatus::kBadPointer);
  EXPECT_EQ(f.run(RdmaOp::kScanRead, 256, {0, 5, 1}), RdmaStatus::kBadRequest);
  EXPECT_EQ(f.run(RdmaOp::kScanRead, 256, {kRdmaMaxScanKeys + 1, 5, 1}), RdmaStatus::kBadRequest);
  EXPECT_EQ(f.run(RdmaOp::kScanRead, 256, {1, 5, 0}), RdmaStatus::kBadRequest);
  EXPECT_EQ(f.run(RdmaOp::kScanRead, 256, {1, 5}, -8), RdmaStatus::kBadRequest);  // its nwords missing
  EXPECT_EQ(f.run(RdmaOp::kMax, end - 8, {2}), RdmaStatus::kOutOfRange);
  EXPECT_EQ(f.run(RdmaOp::kMax, 64, {0}), RdmaStatus::kBadRequest);
  EXPECT_EQ(rdma_reply_len(RdmaOp::kScanRead, 2), 40);
  EXPECT_EQ(rdma_reply_len(RdmaOp::kMax, 1), 32);
}

TEST(RdmaServiceTest, OutOfRangeAndBadRequestsTouchNothing) {
  Fixture f;
  const uint64_t end = f.region.bytes();
  EXPECT_EQ(f.run(RdmaOp::kRead, end - 8, {1}), RdmaStatus::kOk);
  EXPECT_EQ(f.run(RdmaOp::kRead, end - 8, {2}), RdmaStatus::kOutOfRange);
  EXPECT_EQ(f.run(RdmaOp::kRead, end, {1}), RdmaStatus::kOutOfRange);
  EXPECT_EQ(f.run(RdmaOp::kRead, 4, {1}), RdmaStatus::kOutOfRange);  // unaligned
  EXPECT_EQ(f.run(RdmaOp::kRead, std::numeric_limits<uint64_t>::max() - 7, {1}), RdmaStatus::kOutOfRange);
  EXPECT_EQ(f.run(RdmaOp::kWrite, end - 8, {2, 1, 1}), RdmaStatus::kOutOfRange);
  EXPECT_EQ(f.run(RdmaOp::kCas, end, {0, 1}), RdmaStatus::kOutOfRange);
  EXPECT_EQ(f.run(RdmaOp::kFaa, 1ull << 40, {1}), RdmaStatus::kOutOfRange);
  f.region.store(0, end - 8);  // a pointer to the last word: 2 words from it run past the end
  EXPECT_EQ(f.run(RdmaOp::kIndirectRead, 0, {2}), RdmaStatus::kBadPointer);
  f.region.store(0, 3);  // unaligned pointer
  EXPECT_EQ(f.run(RdmaOp::kIndirectRead, 0, {1}), RdmaStatus::kBadPointer);
  EXPECT_EQ(f.run(RdmaOp::kRead, 0, {0}), RdmaStatus::kBadRequest);                 // nwords 0
  EXPECT_EQ(f.run(RdmaOp::kRead, 0, {kRdmaMaxWords + 1}), RdmaStatus::kBadRequest);
  EXPECT_EQ(f.run(static_cast<RdmaOp>(9), 0, {1}, 40), RdmaStatus::kBadRequest);     // unknown op, 40 bytes
  EXPECT_EQ(f.run(RdmaOp::kWrite, 0, {2, 1, 1}, -8), RdmaStatus::kBadRequest);       // short
  EXPECT_EQ(f.run(RdmaOp::kCas, 0, {0, 1}, 8), RdmaStatus::kBadRequest);             // long
  EXPECT_EQ(f.reply.nwords, 0u);
  EXPECT_EQ(f.stats.writes + f.stats.cas + f.stats.faa, 0u);
  for (uint64_t a = 8; a < end; a += 8) ASSERT_EQ(f.region.load(a), 0u) << a;
  // Too short to answer (no sent_time): dropped.
  const uint64_t w[1] = {1};
  EXPECT_FALSE(execute_rdma(w, 1, 8, &f.region, &f.stats, &f.reply));
  EXPECT_EQ(f.stats.dropped, 1u);
}

}  // namespace
}  // namespace nanopu::apps
