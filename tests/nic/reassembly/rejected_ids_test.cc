// The receiver's memory of messages rejected for load
// (nic/reassembly/rejected_ids.h): each rejected id is found again, another
// is not, and past its capacity the oldest rejection is forgotten first.
#include "nic/reassembly/rejected_ids.h"

#include <gtest/gtest.h>

namespace nanopu {
namespace {

DeliveredId id(uint32_t n) { return {0x0a000002, static_cast<uint16_t>(n % 256), static_cast<uint16_t>(n), 9, 64, 1 << 8}; }

TEST(RejectedIdsTest, ARejectedMessageIsKnownAgainAndTheOldestIsForgottenFirst) {
  RejectedIds r;
  EXPECT_TRUE(r.empty());
  r.remember(id(1));
  EXPECT_TRUE(r.contains(id(1)));
  EXPECT_FALSE(r.contains(id(2)));
  DeliveredId other_sender = id(1);
  other_sender.src_ip = 0x0a000003;
  EXPECT_FALSE(r.contains(other_sender));
  for (uint32_t n = 2; n <= RejectedIds::kCapacity; ++n) r.remember(id(n));
  r.remember(id(1));  // already kept: not a new entry
  EXPECT_TRUE(r.contains(id(1)));
  r.remember(id(RejectedIds::kCapacity + 1));  // full: id 1, the oldest, goes
  EXPECT_FALSE(r.contains(id(1)));
  EXPECT_TRUE(r.contains(id(2)));
  EXPECT_TRUE(r.contains(id(RejectedIds::kCapacity + 1)));
}

}  // namespace
}  // namespace nanopu
