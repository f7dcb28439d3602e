// A chain replica's store: 64-bit versions that never wrap, a write applied
// only when newer, the head's next version, a snapshot in key order; and a
// configuration's words and the places it gives.
#include "apps/chain/chain_store.h"

#include <gtest/gtest.h>

#include "apps/chain/chain_config.h"

namespace nanopu::apps {
namespace {

TEST(ChainStoreTest, AWriteAppliesOnlyWhenNewerAndVersionsNeverWrap) {
  ChainStore s;
  ChainValue v1{}, v2{};
  v1[0] = 1;
  v2[0] = 2;
  EXPECT_EQ(s.next_version({1, 2}), 1u);
  EXPECT_EQ(s.write({1, 2}, 200, v1), ChainStore::Write::kApplied);  // absent: any version
  EXPECT_EQ(s.write({1, 2}, 200, v2), ChainStore::Write::kStale);    // sent again
  EXPECT_EQ(s.write({1, 2}, 199, v2), ChainStore::Write::kStale);    // overtaken
  EXPECT_EQ(s.read({1, 2})->value[0], 1u);
  // 8-bit versions wrapped at 255: a write 128 versions late counted as
  // newer and moved the key backwards. 64 bits never wrap in a run.
  EXPECT_EQ(s.write({1, 2}, 3, v2), ChainStore::Write::kStale);
  EXPECT_EQ(s.write({1, 2}, 201 + 128, v2), ChainStore::Write::kApplied);
  EXPECT_EQ(s.read({1, 2})->version, 329u);
  EXPECT_EQ(s.next_version({1, 2}), 330u);
  EXPECT_EQ(s.write({1, 2}, UINT64_MAX - 1, v1), ChainStore::Write::kApplied);
  EXPECT_EQ(s.read({2, 1}), nullptr);
  EXPECT_EQ(s.size(), 1u);
}

TEST(ChainStoreTest, ASnapshotIsInKeyOrderWhateverTheInsertions) {
  ChainStore s;
  for (uint64_t k : {9, 3, 7, 1}) s.write({k, 0}, k * 10, ChainValue{});
  const auto snap = s.snapshot();
  ASSERT_EQ(snap.size(), 4u);
  EXPECT_EQ(snap[0].first[0], 1u);
  EXPECT_EQ(snap[3].first[0], 9u);
  EXPECT_EQ(snap[3].second.version, 90u);
  s.clear();
  EXPECT_EQ(s.size(), 0u);
}

TEST(ChainConfigTest, PlacesAndWordsOfAChainWithAJoiner) {
  ChainConfig c;
  c.epoch = 7;
  c.members = {chain_node(1, 5), chain_node(2, 5), chain_node(3, 5)};
  c.pending = true;  // the third joins as the tail
  EXPECT_TRUE(c.is_head(chain_node(1, 5)));
  EXPECT_FALSE(c.is_tail(chain_node(2, 5)));
  EXPECT_TRUE(c.is_tail(chain_node(3, 5)));
  EXPECT_EQ(c.joining(), chain_node(3, 5));
  EXPECT_EQ(c.successor(chain_node(2, 5)), chain_node(3, 5));
  EXPECT_EQ(c.predecessor(chain_node(1, 5)), 0u);
  EXPECT_EQ(c.predecessor(chain_node(9, 5)), 0u) << "not a member";
  const std::optional<ChainConfig> back = ChainConfig::from_words(c.words());
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->epoch, 7u);
  EXPECT_EQ(back->members, c.members);
  EXPECT_TRUE(back->pending);
  c.pending = false;
  EXPECT_EQ(c.joining(), 0u);
  EXPECT_FALSE(ChainConfig::from_words(c.words())->pending);
  std::vector<uint64_t> bad = c.words();
  bad[1] = 3 | 2 << 8;  // pending is one bit
  EXPECT_FALSE(ChainConfig::from_words(bad).has_value());
  bad = {7, 1 | 1 << 8, chain_node(1, 5)};  // a joiner needs a predecessor
  EXPECT_FALSE(ChainConfig::from_words(bad).has_value());
  bad[1] = 9;  // more members than words
  EXPECT_FALSE(ChainConfig::from_words(bad).has_value());
}

}  // namespace
}  // namespace nanopu::apps
