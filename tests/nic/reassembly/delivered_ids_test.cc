#include "nic/reassembly/delivered_ids.h"

#include <gtest/gtest.h>

#include <random>
#include <set>

namespace nanopu {
namespace {

constexpr uint64_t kHorizon = 1'000'000;
constexpr uint32_t kNanopuEpoch = uint32_t{7} << 8 | 7;  // incarnation 7
constexpr uint32_t kPrototypeEpoch = 3;                  // incarnation 0

DeliveredId id_of(uint16_t msg_id, uint32_t epoch = kNanopuEpoch, uint32_t ip = 0x0a000001) {
  return DeliveredId{ip, static_cast<uint16_t>(msg_id % 256), msg_id, 5, 64, epoch};
}

TEST(DeliveredIdsTest, ADeliveredIdIsSeenAndItsNeighboursAreNot) {
  DeliveredIds d(64, 8, kHorizon);
  d.remember(id_of(10), 1);
  EXPECT_TRUE(d.seen(id_of(10), 2));
  EXPECT_FALSE(d.seen(id_of(9), 2));
  EXPECT_FALSE(d.seen(id_of(11), 2));
  d.remember(id_of(8), 3);  // out of order, behind the highest
  EXPECT_TRUE(d.seen(id_of(8), 4));
  EXPECT_FALSE(d.seen(id_of(9), 4));
}

TEST(DeliveredIdsTest, TheSameIdWithAnotherLengthContextOrRunIsANewMessage) {
  DeliveredIds d(64, 8, kHorizon);
  d.remember(id_of(10), 1);
  DeliveredId other = id_of(10);
  other.msg_len = 65;
  EXPECT_FALSE(d.seen(other, 2));
  other = id_of(10);
  other.src_context = 6;
  EXPECT_FALSE(d.seen(other, 2));
  EXPECT_FALSE(d.seen(id_of(10, uint32_t{8} << 8 | 8), 2));  // a restarted sender
  EXPECT_FALSE(d.seen(id_of(10, kNanopuEpoch, 0x0a000002), 2));  // another sender
}

TEST(DeliveredIdsTest, IdsAreFollowedAcrossTheWrapOfTheSixteenBitCounter) {
  DeliveredIds d(64, 8, kHorizon);
  for (uint32_t i = 65530; i < 65536 + 6; ++i) d.remember(id_of(static_cast<uint16_t>(i)), i);
  for (uint32_t i = 65530; i < 65536 + 6; ++i)
    EXPECT_TRUE(d.seen(id_of(static_cast<uint16_t>(i)), 70000)) << i;
  EXPECT_FALSE(d.seen(id_of(6), 70000));
  EXPECT_FALSE(d.seen(id_of(65529), 70000));
}

TEST(DeliveredIdsTest, AnIdFallenOutOfTheWindowIsTakenAsNewNeverDropped) {
  DeliveredIds d(64, 8, kHorizon);
  d.remember(id_of(100), 1);
  d.remember(id_of(100 + DeliveredIds::kWindowIds), 2);
  EXPECT_FALSE(d.seen(id_of(100), 3));
  EXPECT_TRUE(d.seen(id_of(100 + DeliveredIds::kWindowIds), 3));
  // Half a window on, it is still known; a whole window on, forgotten.
  d.remember(id_of(100 + 3 * DeliveredIds::kWindowIds / 2), 4);
  EXPECT_TRUE(d.seen(id_of(100 + DeliveredIds::kWindowIds), 5));
  d.remember(id_of(100 + 2 * DeliveredIds::kWindowIds + 5), 6);
  EXPECT_FALSE(d.seen(id_of(100 + DeliveredIds::kWindowIds), 7));
  EXPECT_TRUE(d.seen(id_of(100 + 3 * DeliveredIds::kWindowIds / 2), 7));  // half a window back
}

// An id older than a live window keeps is taken as new and counted: the one
// way a late duplicate could be delivered twice is visible (nic.rx_beyond_id_memory).
TEST(DeliveredIdsTest, AnIdBeyondTheWindowIsCountedWhenAskedAbout) {
  uint64_t beyond = 0;
  DeliveredIds d(64, 8, kHorizon, nullptr, &beyond);
  d.remember(id_of(100), 1);
  EXPECT_FALSE(d.seen(id_of(99), 2));  // inside the window, undelivered: new, not counted
  EXPECT_EQ(beyond, 0u);
  d.remember(id_of(100 + DeliveredIds::kWindowIds), 3);
  EXPECT_FALSE(d.seen(id_of(100), 4));
  EXPECT_EQ(beyond, 1u);
  d.remember(id_of(100), 5);  // delivered behind the window: kept in the map
  EXPECT_TRUE(d.seen(id_of(100), 6));
  EXPECT_EQ(beyond, 1u);
}

// Homa's SRPT may finish a long message after more than a window of younger
// ones: that late delivery is kept (in the map), so a late copy of it is
// still a duplicate.
TEST(DeliveredIdsTest, ADeliveryAlreadyBehindTheWindowIsStillRemembered) {
  DeliveredIds d(64, 8, kHorizon);
  d.remember(id_of(100 + DeliveredIds::kWindowIds + 10), 1);
  EXPECT_FALSE(d.seen(id_of(100), 2));
  d.remember(id_of(100), 3);
  EXPECT_TRUE(d.seen(id_of(100), 4));
  EXPECT_FALSE(d.seen(id_of(101), 4));
  EXPECT_FALSE(d.seen(id_of(100, kNanopuEpoch, 0x0a000002), 4));  // another sender
}

TEST(DeliveredIdsTest, MemoryLapsesAfterTheHorizonOfSilence) {
  for (const uint64_t asked : {1 + kHorizon, 2 + kHorizon}) {
    DeliveredIds d(64, 8, kHorizon);
    d.remember(id_of(10), 1);
    d.remember(id_of(10, kPrototypeEpoch), 1);
    const bool kept = asked <= 1 + kHorizon;
    EXPECT_EQ(d.seen(id_of(10), asked), kept) << asked;
    EXPECT_EQ(d.seen(id_of(10, kPrototypeEpoch), asked), kept) << asked;
  }
}

// A sender whose ACK was lost keeps retransmitting on its own timeouts,
// which may be longer than the receiver's memory (its flags are its own: a
// client with the default 1 s rto_max beside a server whose memory lasts
// less). Each copy that arrives renews the memory, so the message is never
// delivered twice however long the sender goes on; only silence lapses it.
TEST(DeliveredIdsTest, ACopyArrivingRenewsTheMemoryOfItsSender) {
  DeliveredIds d(64, 8, kHorizon);
  d.remember(id_of(10), 1);
  d.remember(id_of(10, kPrototypeEpoch), 1);
  uint64_t now = 1;
  for (int copy = 0; copy < 5; ++copy) {  // five copies, each nearly a horizon after the last
    now += kHorizon;
    EXPECT_TRUE(d.seen(id_of(10), now)) << copy;
    EXPECT_TRUE(d.seen(id_of(10, kPrototypeEpoch), now)) << copy;
  }
  EXPECT_FALSE(d.seen(id_of(11), now));  // a new message is still new
  // A packet of another message, still being reassembled, renews it too.
  now += kHorizon;
  d.heard_from(id_of(12), now);
  now += kHorizon;
  EXPECT_TRUE(d.seen(id_of(10), now));
  EXPECT_FALSE(d.seen(id_of(10), now + kHorizon + 1));
  EXPECT_FALSE(d.seen(id_of(10, kPrototypeEpoch), now + kHorizon + 1));
}

TEST(DeliveredIdsTest, PrototypePeersAreRememberedByBufferAndIdOldestForgottenFirst) {
  DeliveredIds d(4, 8, kHorizon);
  for (uint16_t i = 1; i <= 5; ++i) d.remember(id_of(i, kPrototypeEpoch), i);
  EXPECT_FALSE(d.seen(id_of(1, kPrototypeEpoch), 10));  // the oldest of 5, with room for 4
  for (uint16_t i = 2; i <= 5; ++i) EXPECT_TRUE(d.seen(id_of(i, kPrototypeEpoch), 10)) << i;
  // A prototype reuses ids: no window, so a lower id is not assumed delivered.
  EXPECT_FALSE(d.seen(id_of(0, kPrototypeEpoch), 10));
}

TEST(DeliveredIdsTest, WhenFullTheSenderHeardLeastRecentlyIsForgotten) {
  uint64_t forgotten = 0;
  DeliveredIds d(64, 2, kHorizon, &forgotten);
  d.remember(id_of(1, kNanopuEpoch, 1), 10);
  d.remember(id_of(1, kNanopuEpoch, 2), 20);
  d.remember(id_of(2, kNanopuEpoch, 1), 30);  // sender 1 heard again
  d.remember(id_of(1, kNanopuEpoch, 3), 40);  // evicts sender 2
  EXPECT_EQ(forgotten, 1u);
  EXPECT_TRUE(d.seen(id_of(1, kNanopuEpoch, 1), 50));
  EXPECT_FALSE(d.seen(id_of(1, kNanopuEpoch, 2), 50));
  EXPECT_TRUE(d.seen(id_of(1, kNanopuEpoch, 3), 50));
}

// Against a reference set: one sender's ids rise with gaps (messages to other
// receivers), deliveries arrive out of order, and late copies of recent ones
// come back. Every delivered id still in the window is seen; no id never
// delivered ever is.
TEST(DeliveredIdsTest, AgreesWithAReferenceSetOnARandomOrderedStream) {
  DeliveredIds d(64, 8, 1ull << 62);
  std::mt19937_64 rng(42);
  std::set<uint32_t> delivered;  // unwrapped ids
  std::vector<uint32_t> pending;
  uint32_t next = 60000;  // wraps within the run
  for (uint64_t t = 1; t < 300000; ++t) {
    const uint32_t r = rng() % 100;
    if (r < 50) {
      next += 1 + rng() % 8;
      pending.push_back(next);
    }
    if (!pending.empty() && r % 3 == 0) {
      const size_t i = rng() % pending.size();
      const uint32_t m = pending[i];
      pending.erase(pending.begin() + static_cast<ptrdiff_t>(i));
      const DeliveredId id = id_of(static_cast<uint16_t>(m));
      ASSERT_FALSE(d.seen(id, t)) << "a new message taken for a duplicate: " << m;
      d.remember(id, t);
      delivered.insert(m);
    }
    if (pending.size() > 64) pending.erase(pending.begin());  // given up by the sender
    if (!delivered.empty() && r >= 90) {
      const uint32_t back = static_cast<uint32_t>(rng() % 2000);
      auto it = delivered.lower_bound(next > back ? next - back : 0);
      if (it != delivered.end()) {
        ASSERT_TRUE(d.seen(id_of(static_cast<uint16_t>(*it)), t)) << "a late copy redelivered: " << *it;
      }
    }
  }
}

}  // namespace
}  // namespace nanopu
