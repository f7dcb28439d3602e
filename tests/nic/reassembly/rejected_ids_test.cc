// The receiver's memory of messages rejected for load
// (nic/reassembly/rejected_ids.h): each rejected id is found again within
// its horizon (a copy renews it), another is not, none after the horizon,
// and past its capacity the oldest rejection is forgotten first.
#include "nic/reassembly/rejected_ids.h"

#include <gtest/gtest.h>

namespace nanopu {
namespace {

DeliveredId id(uint32_t n) { return {0x0a000002, static_cast<uint16_t>(n % 256), static_cast<uint16_t>(n), 9, 64, 1 << 8}; }

TEST(RejectedIdsTest, ARejectedMessageIsKnownAgainAndTheOldestIsForgottenFirst) {
  RejectedIds r(1000);
  EXPECT_TRUE(r.empty());
  EXPECT_TRUE(r.remember(id(1), 0));
  EXPECT_TRUE(r.contains(id(1), 10));
  EXPECT_FALSE(r.contains(id(2), 10));
  DeliveredId other_sender = id(1);
  other_sender.src_ip = 0x0a000003;
  EXPECT_FALSE(r.contains(other_sender, 10));
  for (uint32_t n = 2; n <= RejectedIds::kCapacity; ++n) EXPECT_TRUE(r.remember(id(n), 20));
  EXPECT_FALSE(r.remember(id(1), 20));  // already kept: a copy, not a new rejection
  EXPECT_TRUE(r.contains(id(1), 30));
  EXPECT_TRUE(r.remember(id(RejectedIds::kCapacity + 1), 30));  // full: id 1, the oldest, goes
  EXPECT_FALSE(r.contains(id(1), 30));
  EXPECT_TRUE(r.contains(id(2), 30));
  EXPECT_TRUE(r.contains(id(RejectedIds::kCapacity + 1), 30));
}

TEST(RejectedIdsTest, ARejectionLapsesAfterItsHorizonUnlessACopyRenewsIt) {
  RejectedIds r(1000);
  r.remember(id(1), 0);
  r.remember(id(2), 0);
  EXPECT_TRUE(r.contains(id(1), 900));  // a copy at 900: kept until 1900
  EXPECT_TRUE(r.contains(id(1), 1800));
  EXPECT_FALSE(r.contains(id(2), 1800));  // none came: a later message with its (slot, id) is new
}

}  // namespace
}  // namespace nanopu
