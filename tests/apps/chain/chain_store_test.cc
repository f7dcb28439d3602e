// A chain replica's store and the 8-bit sequence-number order (RFC 1982).
#include "apps/chain/chain_store.h"

#include <gtest/gtest.h>

namespace nanopu::apps {
namespace {

TEST(ChainStoreTest, SequenceNumbersCompareInSerialArithmetic) {
  EXPECT_TRUE(seq_newer(2, 1));
  EXPECT_FALSE(seq_newer(1, 2));
  EXPECT_FALSE(seq_newer(5, 5));
  EXPECT_TRUE(seq_newer(0, 255));     // wraps
  EXPECT_FALSE(seq_newer(100, 228));  // 128 apart: neither is newer (RFC 1982 leaves it undefined)
  EXPECT_FALSE(seq_newer(228, 100));
  EXPECT_TRUE(seq_newer(227, 100));   // 127 ahead is newer
  EXPECT_FALSE(seq_newer(100, 227));
}

TEST(ChainStoreTest, AWriteAppliesOnlyWhenNewer) {
  ChainStore s;
  ChainValue v1{}, v2{};
  v1[0] = 1;
  v2[0] = 2;
  EXPECT_EQ(s.write({1, 2}, 200, v1), ChainStore::Write::kApplied);  // absent: any seq
  EXPECT_EQ(s.write({1, 2}, 200, v2), ChainStore::Write::kStale);    // sent again
  EXPECT_EQ(s.write({1, 2}, 199, v2), ChainStore::Write::kStale);    // overtaken
  EXPECT_EQ(s.read({1, 2})->value[0], 1u);
  EXPECT_EQ(s.write({1, 2}, 3, v2), ChainStore::Write::kApplied);    // 200 -> 3 wraps forward
  EXPECT_EQ(s.read({1, 2})->seq, 3);
  EXPECT_EQ(s.read({1, 2})->value[0], 2u);
  EXPECT_EQ(s.read({2, 1}), nullptr);
  EXPECT_EQ(s.size(), 1u);
}

}  // namespace
}  // namespace nanopu::apps
