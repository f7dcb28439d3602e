// The public value types of include/nanopu (layer 0).
#include <gtest/gtest.h>

#include "nanopu/address.h"
#include "nanopu/app_header.h"
#include "nanopu/fault_spec.h"
#include "nanopu/policies.h"

namespace nanopu {
namespace {

TEST(AddressTest, ParsesAndFormatsIpv4) {
  EXPECT_EQ(parse_ipv4("10.0.0.2"), 0x0a000002u);
  EXPECT_EQ(parse_ipv4("255.255.255.255"), 0xffffffffu);
  EXPECT_FALSE(parse_ipv4("10.0.0"));
  EXPECT_FALSE(parse_ipv4("10.0.0.256"));
  EXPECT_FALSE(parse_ipv4("a.b.c.d"));
  EXPECT_FALSE(parse_ipv4("10..0.1"));
  EXPECT_EQ(format_ipv4(0x0a000002), "10.0.0.2");
}

TEST(AddressTest, ParsesAndFormatsMac) {
  std::optional<MacAddress> m = parse_mac("02:00:0a:ff:00:01");
  ASSERT_TRUE(m);
  EXPECT_EQ((*m)[2], 0x0a);
  EXPECT_EQ(format_mac(*m), "02:00:0a:ff:00:01");
  EXPECT_FALSE(parse_mac("02:00:0a:ff:00"));
  EXPECT_FALSE(parse_mac("02:00:0a:ff:00:100"));
  EXPECT_FALSE(parse_mac("zz:00:0a:ff:00:01"));
}

TEST(PoliciesTest, NamesRoundTripAndUnknownNamesAreRejected) {
  for (CoreSelectPolicy p :
       {CoreSelectPolicy::kJbsq, CoreSelectPolicy::kRss, CoreSelectPolicy::kStatic, CoreSelectPolicy::kRandom})
    EXPECT_EQ(parse_core_select_policy(core_select_policy_name(p)), p);
  for (SchedMode m : {SchedMode::kHts, SchedMode::kTis}) EXPECT_EQ(parse_sched_mode(sched_mode_name(m)), m);
  for (HugePages h : {HugePages::kAuto, HugePages::kOn, HugePages::kOff})
    EXPECT_EQ(parse_huge_pages(huge_pages_name(h)), h);
  EXPECT_FALSE(parse_core_select_policy("round-robin"));
  EXPECT_FALSE(parse_sched_mode("cfs"));
  EXPECT_FALSE(parse_huge_pages("maybe"));
  for (Pinning p : {Pinning::kOn, Pinning::kOff}) EXPECT_EQ(parse_pinning(pinning_name(p)), p);
  EXPECT_FALSE(parse_pinning("true"));
}

TEST(FaultSpecTest, ValidateNamesTheBadField) {
  FaultSpec f;
  EXPECT_TRUE(f.validate().ok());
  f.reorder = 1.5;
  absl::Status s = f.validate();
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("reorder"), std::string::npos) << s;
}

TEST(AppHeaderTest, BitLayoutMatchesDocsWire) {
  const AppHeader h{0x0a000002, 0x1234, 1000};
  EXPECT_EQ(h.word(), 0x0a00000212340000ull | 1000);
  EXPECT_EQ(AppHeader::from_word(h.word()), h);
  EXPECT_EQ(h.payload_words(), 125u);
  EXPECT_EQ((AppHeader{0, 0, 1}).payload_words(), 1u);
  EXPECT_EQ((AppHeader{0, 0, 65535}).payload_words(), 8192u);
}

}  // namespace
}  // namespace nanopu
