// Config::from_flags() (nanopu::flags): strings on the command line become
// typed Config fields, and a bad one is an error naming the flag.
#include <gtest/gtest.h>

#include <string>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/flags/reflection.h"
#include "nanopu/flags.h"

ABSL_DECLARE_FLAG(std::string, core_select);
ABSL_DECLARE_FLAG(std::string, transport);
ABSL_DECLARE_FLAG(std::string, homa_unsched_cutoffs);
ABSL_DECLARE_FLAG(double, link_hold);
ABSL_DECLARE_FLAG(std::string, scheduler);
ABSL_DECLARE_FLAG(std::string, demotion);
ABSL_DECLARE_FLAG(std::string, faults);
ABSL_DECLARE_FLAG(std::string, gateway_mac);
ABSL_DECLARE_FLAG(std::string, huge);
ABSL_DECLARE_FLAG(std::string, ip);
ABSL_DECLARE_FLAG(std::string, lcores);
ABSL_DECLARE_FLAG(uint32_t, jbsq_n);

namespace nanopu {
namespace {

TEST(ConfigFlagsTest, TypedFieldsFromStrings) {
  absl::FlagSaver saver;
  absl::SetFlag(&FLAGS_core_select, "rss");
  absl::SetFlag(&FLAGS_scheduler, "tis");
  absl::SetFlag(&FLAGS_demotion, "until_done");
  absl::SetFlag(&FLAGS_faults, "drop=0.25,seed=9");
  absl::SetFlag(&FLAGS_gateway_mac, "02:00:00:00:00:07");
  absl::SetFlag(&FLAGS_huge, "off");
  absl::SetFlag(&FLAGS_ip, "10.0.0.9");
  absl::SetFlag(&FLAGS_lcores, "0,1");
  absl::StatusOr<Config> c = Config::from_flags();
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->core_select, CoreSelectPolicy::kRss);
  EXPECT_EQ(c->scheduler, SchedMode::kTis);
  EXPECT_EQ(c->demotion, DemotionMode::kUntilDone);
  EXPECT_DOUBLE_EQ(c->faults.drop, 0.25);
  EXPECT_EQ(c->faults.seed, 9u);
  EXPECT_EQ(c->gateway_mac[5], 7);
  EXPECT_EQ(c->huge, HugePages::kOff);
  EXPECT_EQ(c->ip, 0x0a000009u);
  EXPECT_EQ(c->lcores, (std::vector<unsigned>{0, 1}));
}

TEST(ConfigFlagsTest, BadStringsNameTheFlag) {
  struct Case {
    void (*set)();
    const char* mention;
  };
  const Case cases[] = {
      {[] { absl::SetFlag(&FLAGS_core_select, "round-robin"); }, "--core_select='round-robin'"},
      {[] { absl::SetFlag(&FLAGS_scheduler, "cfs"); }, "--scheduler='cfs'"},
      {[] { absl::SetFlag(&FLAGS_demotion, "sometimes"); }, "--demotion='sometimes'"},
      {[] { absl::SetFlag(&FLAGS_faults, "explode=0.1"); }, "unknown fault 'explode'"},
      {[] { absl::SetFlag(&FLAGS_faults, "drop=2"); }, "drop is a probability"},
      {[] { absl::SetFlag(&FLAGS_gateway_mac, "zz"); }, "--gateway_mac='zz'"},
      {[] { absl::SetFlag(&FLAGS_huge, "maybe"); }, "--huge='maybe'"},
      {[] { absl::SetFlag(&FLAGS_ip, "10.0.0"); }, "--ip='10.0.0'"},
      {[] { absl::SetFlag(&FLAGS_lcores, "a,b"); }, "--lcores='a,b'"},
      {[] { absl::SetFlag(&FLAGS_jbsq_n, 0u); }, "--jbsq_n=0: JBSQ needs n >= 1"},
      {[] { absl::SetFlag(&FLAGS_link_hold, -1.0); }, "--link_hold=-1"},
      {[] { absl::SetFlag(&FLAGS_transport, "tcp"); }, "--transport='tcp'"},
      {[] { absl::SetFlag(&FLAGS_homa_unsched_cutoffs, "200,x"); }, "--homa_unsched_cutoffs: 'x'"},
      {[] { absl::SetFlag(&FLAGS_homa_unsched_cutoffs, "300,200,100"); }, "must be ascending"},
  };
  for (const Case& k : cases) {
    absl::FlagSaver saver;
    k.set();
    absl::StatusOr<Config> c = Config::from_flags();
    ASSERT_FALSE(c.ok()) << k.mention;
    EXPECT_NE(c.status().message().find(k.mention), std::string::npos) << c.status();
  }
}

}  // namespace
}  // namespace nanopu
