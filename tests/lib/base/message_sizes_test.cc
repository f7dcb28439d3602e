// The Homa paper's W1..W5 (nanopu/message_sizes.h) against the tables they
// come from: the shares at the published points, the published means, and
// what clipping at nanopu's 64 KB does. A pure unit.
#include <gtest/gtest.h>

#include "nanopu/message_sizes.h"

namespace nanopu {
namespace {

constexpr uint32_t kNoBound = 0xffffffffu;

TEST(MessageSizesTest, NamesParseBothWaysAndAnUnknownOneIsRefusedWithTheChoices) {
  for (SizeWorkload w : kSizeWorkloads) {
    absl::StatusOr<SizeWorkload> p = parse_size_workload(size_workload_name(w));
    ASSERT_TRUE(p.ok());
    EXPECT_EQ(*p, w);
  }
  EXPECT_EQ(*parse_size_workload("w4"), SizeWorkload::kW4);
  for (const char* bad : {"", "W", "W6", "W0", "W33", "x3"}) {
    absl::StatusOr<SizeWorkload> p = parse_size_workload(bad);
    ASSERT_FALSE(p.ok()) << bad;
    EXPECT_NE(p.status().message().find("W5 (DCTCP web search)"), std::string::npos);
  }
}

TEST(MessageSizesTest, SizesGrowWithTheDrawAndStayWithinTheBound) {
  for (SizeWorkload w : kSizeWorkloads) {
    uint32_t last = 0;
    for (int i = 0; i < 10000; ++i) {
      const uint32_t b = draw_message_bytes(w, i / 10000.0, 65527);
      ASSERT_GE(b, last) << size_workload_name(w) << " at " << i;
      ASSERT_GE(b, 1u);
      ASSERT_LE(b, 65527u);
      last = b;
    }
  }
}

TEST(MessageSizesTest, SharesAtThePublishedPoints) {
  // W1: 47 % of messages are at most 15 B, then the Pareto tail.
  EXPECT_LE(draw_message_bytes(SizeWorkload::kW1, 0.4699, kNoBound), 15u);
  EXPECT_GT(draw_message_bytes(SizeWorkload::kW1, 0.48, kNoBound), 15u);
  EXPECT_EQ(draw_message_bytes(SizeWorkload::kW1, 0.1, kNoBound), 2u);
  // W2: 91 % at most 512 B; between 256 and 512 B evenly in 1/size.
  EXPECT_EQ(draw_message_bytes(SizeWorkload::kW2, 0.9104, kNoBound), 512u);
  EXPECT_NEAR(draw_message_bytes(SizeWorkload::kW2, 0.4638395 + 0.0446561, kNoBound), 269, 1);
  // W3: 55 % at most 4 B, 99.8 % at most 64 KB.
  EXPECT_EQ(draw_message_bytes(SizeWorkload::kW3, 0.5, kNoBound), 4u);
  EXPECT_LE(draw_message_bytes(SizeWorkload::kW3, 0.998, kNoBound), 65536u);
  EXPECT_GT(draw_message_bytes(SizeWorkload::kW3, 0.9981, kNoBound), 65536u);
  // W4: a discrete CDF: 46 % at most 600 B.
  EXPECT_EQ(draw_message_bytes(SizeWorkload::kW4, 0.45, kNoBound), 600u);
  EXPECT_EQ(draw_message_bytes(SizeWorkload::kW4, 0.46, kNoBound), 679u);
  // W5: whole packets of 1460 B, 15 % at most 6 of them.
  for (double u : {0.0, 0.01, 0.15, 0.5, 0.97}) EXPECT_EQ(draw_message_bytes(SizeWorkload::kW5, u, kNoBound) % 1460, 0u);
  EXPECT_EQ(draw_message_bytes(SizeWorkload::kW5, 0.0, kNoBound), 1460u);
  EXPECT_EQ(draw_message_bytes(SizeWorkload::kW5, 0.15, kNoBound), 6u * 1460);
}

TEST(MessageSizesTest, MeansAreThePublishedOnesAndClippingIsSaid) {
  // The published tables' means (their first line): W1 185 B, W2 441 B, W4 194 KB.
  EXPECT_NEAR(size_stats(SizeWorkload::kW1, kNoBound).mean_bytes, 185.0, 185 * 0.02);
  EXPECT_NEAR(size_stats(SizeWorkload::kW2, kNoBound).mean_bytes, 440.8, 440.8 * 0.1);
  EXPECT_NEAR(size_stats(SizeWorkload::kW4, kNoBound).mean_bytes, 194330.9, 194330.9 * 0.02);
  EXPECT_EQ(size_stats(SizeWorkload::kW1, kNoBound).clipped_fraction, 0);
  // At 64 KB: 17.7 % of W4's messages and half of W5's are clipped, and
  // most of their bytes; W1's clipping is negligible.
  const SizeStats w4 = size_stats(SizeWorkload::kW4, 65527), w5 = size_stats(SizeWorkload::kW5, 65527);
  EXPECT_NEAR(w4.clipped_fraction, 0.1766, 0.005);
  EXPECT_NEAR(w5.clipped_fraction, 0.53, 0.01);
  EXPECT_GT(w5.clipped_bytes_fraction, 0.9);
  EXPECT_LT(size_stats(SizeWorkload::kW1, 65527).clipped_fraction, 1e-4);
  EXPECT_LE(w4.mean_bytes, 65527);
}

}  // namespace
}  // namespace nanopu
