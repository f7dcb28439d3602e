#include "apps/mica/mica_table.h"

#include <gtest/gtest.h>

#include <vector>

#include "apps/mica/kv_service.h"

namespace nanopu::apps {
namespace {

KvKey key(uint64_t k) { return {0x1000 + k, ~k}; }
std::vector<uint64_t> value(uint64_t k, uint64_t v) {
  std::vector<uint64_t> out(kKvValueWords);
  for (uint32_t i = 0; i < kKvValueWords; ++i) out[i] = k << 40 | v << 8 | i;
  return out;
}

TEST(MicaTableTest, GetReturnsTheLastSet) {
  MicaTable t(MicaTableParams{});
  for (uint64_t k = 0; k < 10000; ++k) t.set(key(k), kv_key_hash(key(k)), value(k, 1).data());
  for (uint64_t k = 0; k < 10000; k += 3) t.set(key(k), kv_key_hash(key(k)), value(k, 2).data());
  for (uint64_t k = 0; k < 10000; ++k) {
    const uint64_t* v = t.get(key(k), kv_key_hash(key(k)));
    ASSERT_NE(v, nullptr) << k;
    EXPECT_EQ(std::vector<uint64_t>(v, v + kKvValueWords), value(k, k % 3 == 0 ? 2 : 1)) << k;
  }
  EXPECT_EQ(t.get(key(10000), kv_key_hash(key(10000))), nullptr);
  EXPECT_EQ(t.evictions(), 0u);
  EXPECT_EQ(t.overwritten(), 0u);
}

// A partition of a statically partitioned store holds the keys whose
// hash mod N is its own (nanopu-loadgen --kv_partitions): those share their
// low bits, and the table must still spread them over all its buckets
// (once it used the low bits: a quarter of them at N = 4, and 10k keys
// evicted some).
TEST(MicaTableTest, APartitionsKeysSharingTheirLowHashBitsStillFitWithoutEviction) {
  MicaTable t(MicaTableParams{});
  std::vector<uint64_t> mine;
  for (uint64_t k = 0; mine.size() < 10000; ++k)
    if (kv_key_hash(key(k)) % 4 == 1) mine.push_back(k);  // partition 1 of 4
  for (uint64_t k : mine) t.set(key(k), kv_key_hash(key(k)), value(k, 1).data());
  EXPECT_EQ(t.evictions(), 0u);
  for (uint64_t k : mine) ASSERT_NE(t.get(key(k), kv_key_hash(key(k))), nullptr) << k;
}

TEST(MicaTableTest, ReserveAndCommitWriteInPlace) {
  MicaTable t(MicaTableParams{});
  const uint64_t h = kv_key_hash(key(7));
  uint64_t* v = t.reserve(key(7), h);
  for (uint32_t i = 0; i < kKvValueWords; ++i) v[i] = i;
  EXPECT_EQ(t.get(key(7), h), nullptr) << "visible only once committed";
  t.commit();
  ASSERT_NE(t.get(key(7), h), nullptr);
  EXPECT_EQ(t.get(key(7), h)[63], 63u);
  // An update goes to the same item.
  uint64_t* again = t.reserve(key(7), h);
  EXPECT_EQ(again, t.get(key(7), h));
  again[63] = 99;
  t.commit();
  EXPECT_EQ(t.get(key(7), h)[63], 99u);
}

TEST(MicaTableTest, AFullBucketForgetsItsOldestKeyNeverAnotherKeysValue) {
  MicaTableParams p;
  p.buckets_log2 = 0;  // one bucket: the eighth key evicts the first
  MicaTable t(p);
  for (uint64_t k = 0; k < 8; ++k) t.set(key(k), kv_key_hash(key(k)), value(k, 1).data());
  EXPECT_EQ(t.evictions(), 1u);
  EXPECT_EQ(t.get(key(0), kv_key_hash(key(0))), nullptr);
  for (uint64_t k = 1; k < 8; ++k) {
    const uint64_t* v = t.get(key(k), kv_key_hash(key(k)));
    ASSERT_NE(v, nullptr);
    EXPECT_EQ(v[0], value(k, 1)[0]);
  }
  // Same hash, other key: a miss, not the stored key's value.
  EXPECT_EQ(t.get(key(100), kv_key_hash(key(1))), nullptr);
}

TEST(MicaTableTest, TheLogLosesOnlyKeysOlderThanItsCapacity) {
  MicaTableParams p;
  p.log_bytes = 100 * (3 + kKvValueWords) * 8;  // 100 items
  MicaTable t(p);
  ASSERT_EQ(t.capacity(), 100u);
  for (uint64_t k = 0; k < 150; ++k) t.set(key(k), kv_key_hash(key(k)), value(k, 1).data());
  EXPECT_EQ(t.overwritten(), 50u);
  for (uint64_t k = 0; k < 50; ++k) EXPECT_EQ(t.get(key(k), kv_key_hash(key(k))), nullptr) << k;
  for (uint64_t k = 50; k < 150; ++k) {
    const uint64_t* v = t.get(key(k), kv_key_hash(key(k)));
    ASSERT_NE(v, nullptr) << k;
    EXPECT_EQ(v[5], value(k, 1)[5]);
  }
}

// The request path: malformed requests are answered kKvBadRequest (or
// dropped when too short to answer) and never touch the store.
TEST(KvRequestTest, MalformedRequestsAreAnsweredNeverStored) {
  MicaTable t(MicaTableParams{});
  KvServiceStats st;
  auto run = [&](uint16_t len, std::vector<uint64_t> payload) {
    std::vector<uint64_t> words = {AppHeader{1, 2, len}.word()};
    words.insert(words.end(), payload.begin(), payload.end());
    uint64_t status = 99;
    uint16_t reply_len = 0;
    handle_kv_words(words.data(), static_cast<uint32_t>(words.size()), &t, &st,
                    [&](const AppHeader& h, const uint64_t* out, uint16_t n) {
                      EXPECT_EQ(h.ip, 1u);
                      EXPECT_EQ(h.context, 2u);
                      reply_len = n;
                      status = n == kKvStatusReplyBytes ? out[2] : 100;
                    });
    return std::make_pair(reply_len, status);
  };
  EXPECT_EQ(run(8, {1}).first, 0);                                // too short: dropped
  EXPECT_EQ(run(48, {1, 2, 7, 0, 0, 0}).second, kKvBadRequest);   // unknown op
  EXPECT_EQ(run(56, {1, 2, kKvGet, 0, 0, 0, 0}).second, kKvBadRequest);  // GET too long
  EXPECT_EQ(run(48, {1, 2, kKvSet, 0, 0, 0}).second, kKvBadRequest);     // SET without value
  EXPECT_EQ(st.dropped, 1u);
  EXPECT_EQ(st.bad_requests, 3u);
  EXPECT_EQ(t.sets(), 0u);
  std::vector<uint64_t> set = {1, 2, kKvSet, 5, 6, 77};
  for (uint32_t i = 0; i < kKvValueWords; ++i) set.push_back(i);
  EXPECT_EQ(run(kKvSetBytes, set).second, kKvStored);
  EXPECT_EQ(run(kKvGetBytes, {1, 2, kKvGet, 5, 6, 77}).first, kKvValueReplyBytes);
  EXPECT_EQ(run(kKvGetBytes, {1, 2, kKvGet, 5, 7, 77}).second, kKvNotFound);
}

}  // namespace
}  // namespace nanopu::apps
