// Send stamps (send_stamp.h): the round trip an echoed stamp names is exact
// to a unit whatever copy it came from, and an echo that cannot be read
// unambiguously (none, a message older than the wrap, a stamp older than
// its message) gives nothing.
#include "nic/transport/common/send_stamp.h"

#include <gtest/gtest.h>

namespace nanopu {
namespace {

constexpr uint64_t kRto = 1600;  // ticks: units of 64 (the largest power of two <= 100)

TEST(SendStampTest, UnitsAreTheLargestPowerOfTwoNotAboveASixteenthOfTheTimeout) {
  EXPECT_EQ(SendStamp(kRto).unit_ticks(), 64u);
  EXPECT_EQ(SendStamp(16).unit_ticks(), 1u);
  EXPECT_EQ(SendStamp(0).unit_ticks(), 1u);
  // 50 us of a 2.5 GHz TSC, and of the virtual model's picoseconds.
  EXPECT_EQ(SendStamp(125'000).unit_ticks(), 4096u);
  EXPECT_EQ(SendStamp(50'000'000).unit_ticks(), uint64_t{1} << 21);
}

TEST(SendStampTest, AnEchoTimesTheTransmissionItCameFromToAUnit) {
  const SendStamp s(kRto);
  const uint64_t first = 1'000'000;
  for (const uint64_t sent : {first, first + 1600, first + 3200 + 17, first + 50'000}) {
    for (const uint64_t rtt : {0ull, 63ull, 64ull, 20'000ull, 1'000'000ull}) {
      const std::optional<uint64_t> got = s.round_trip(s.at(sent), first, sent + rtt);
      ASSERT_TRUE(got.has_value()) << sent << " " << rtt;
      EXPECT_LE(*got, rtt + 64) << sent << " " << rtt;
      EXPECT_GE(*got + 64, rtt) << sent << " " << rtt;
    }
  }
}

TEST(SendStampTest, AStampWrapsAndIsStillReadWhileItsMessageIsYoungerThanTheWrap) {
  const SendStamp s(kRto);
  const uint64_t wrap = uint64_t{64} << 16;
  const uint64_t first = 5 * wrap - 100;  // the stamp's counter wraps between send and ACK
  const std::optional<uint64_t> got = s.round_trip(s.at(first), first, first + 1000);
  ASSERT_TRUE(got.has_value());
  EXPECT_NEAR(static_cast<double>(*got), 1000.0, 64.0);
  // A message older than the wrap: its stamps could be any of two wraps.
  EXPECT_FALSE(s.round_trip(s.at(first + wrap), first, first + wrap + 10).has_value());
}

TEST(SendStampTest, NoEchoOrAnEchoOlderThanItsMessageGivesNothing) {
  const SendStamp s(kRto);
  const uint64_t first = 1'000'000;
  EXPECT_FALSE(s.round_trip(0, first, first + 5000).has_value()) << "0: a peer that echoes none";
  // A stamp from before the message was first sent is not one of its own.
  EXPECT_FALSE(s.round_trip(s.at(first - 10'000), first, first + 5000).has_value());
  EXPECT_FALSE(s.round_trip(s.at(first), first, first - 1).has_value()) << "time going back";
  EXPECT_NE(s.at(0), 0u) << "0 is never a stamp";
}

}  // namespace
}  // namespace nanopu
