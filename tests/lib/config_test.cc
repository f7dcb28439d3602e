#include "nanopu/config.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "lib/eal/eal.h"
#include "nanopu/app_header.h"

namespace nanopu {
namespace {

bool has(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

TEST(ConfigTest, DefaultsAreValid) { EXPECT_TRUE(Config{}.validate().ok()); }

TEST(ConfigTest, ImpossibleSettingsSayWhatToChange) {
  struct Case {
    void (*mutate)(Config&);
    const char* mention;
  };
  const Case cases[] = {
      {[](Config& c) { c.lcores.clear(); }, "--lcores"},
      {[](Config& c) { c.lcores = {1, 1}; }, "--lcores"},
      {[](Config& c) { c.max_message_bytes = 0; }, "--max_message_bytes"},
      {[](Config& c) { c.max_message_bytes = 70000; }, "--max_message_bytes"},
      {[](Config& c) { c.jbsq_n = 0; }, "--jbsq_n"},
      {[](Config& c) { c.core_select = "random"; }, "--core_select"},
      {[](Config& c) { c.scheduler = "cfs"; }, "--scheduler"},
      {[](Config& c) { c.faults = "drop=2"; }, "--faults"},
      {[](Config& c) { c.faults = "explode=0.1"; }, "--faults"},
      {[](Config& c) { c.lcores = {0, 1}; c.shared_workers = 2; }, "--shared_workers"},
      {[](Config& c) { c.fifo_messages = 1; }, "--fifo_messages"},
      {[](Config& c) { c.max_threads_per_core = 0; }, "--max_threads_per_core"},
      {[](Config& c) { c.mbufs = 10; }, "--mbufs"},
      {[](Config& c) { c.rtt_packets = 0; }, "--rtt_packets"},
      {[](Config& c) { c.gateway_mac = "zz"; }, "--gateway_mac"},
  };
  for (const Case& k : cases) {
    Config c;
    k.mutate(c);
    absl::Status s = c.validate();
    EXPECT_FALSE(s.ok()) << k.mention;
    EXPECT_NE(s.message().find(k.mention), std::string::npos) << s;
    EXPECT_EQ(s.message().find('\n'), std::string::npos) << "one line: " << s;
  }
}

TEST(ConfigTest, WorkersFollowTheNicCore) {
  Config c;
  c.lcores = {0};
  EXPECT_TRUE(c.shared_core());
  EXPECT_EQ(c.worker_count(), 1u);
  c.lcores = {0, 1, 2};
  EXPECT_FALSE(c.shared_core());
  EXPECT_EQ(c.worker_count(), 2u);
}

TEST(ConfigTest, EalArgsCarryPrefixVdevsAndHugepageChoice) {
  Config c;
  c.lcores = {1, 0};
  c.vdevs = {"net_memif0,role=server,socket=/tmp/x.sock", "net_null0"};
  c.file_prefix = "p1";
  c.extra_eal_args = "--log-level=pmd.net.memif:8  -v";
  std::vector<std::string> a = build_eal_args(c, /*use_huge=*/false);
  EXPECT_TRUE(has(a, "1,0"));
  EXPECT_TRUE(has(a, "--main-lcore=1"));
  EXPECT_TRUE(has(a, "--file-prefix=p1"));
  EXPECT_TRUE(has(a, "--no-pci"));
  EXPECT_TRUE(has(a, "--no-huge"));
  EXPECT_FALSE(has(a, "--in-memory"));
  EXPECT_TRUE(has(a, "--vdev=net_memif0,role=server,socket=/tmp/x.sock"));
  EXPECT_TRUE(has(a, "--vdev=net_null0"));
  EXPECT_TRUE(has(a, "--log-level=pmd.net.memif:8"));
  EXPECT_TRUE(has(a, "-v"));
  std::vector<std::string> h = build_eal_args(c, /*use_huge=*/true);
  EXPECT_TRUE(has(h, "--in-memory"));
  EXPECT_FALSE(has(h, "--no-huge"));
}

TEST(ConfigTest, DefaultFilePrefixIsUniquePerProcess) {
  std::vector<std::string> a = build_eal_args(Config{}, false);
  EXPECT_TRUE(has(a, "--file-prefix=nanopu-" + std::to_string(getpid())));
}

TEST(ConfigTest, ParsesAddresses) {
  uint32_t ip = 0;
  EXPECT_TRUE(parse_ipv4("10.0.0.2", &ip));
  EXPECT_EQ(ip, 0x0a000002u);
  EXPECT_FALSE(parse_ipv4("10.0.0", &ip));
  EXPECT_FALSE(parse_ipv4("10.0.0.256", &ip));
  EXPECT_FALSE(parse_ipv4("a.b.c.d", &ip));
  uint8_t mac[6];
  EXPECT_TRUE(parse_mac("02:00:0a:ff:00:01", mac));
  EXPECT_EQ(mac[2], 0x0a);
  EXPECT_FALSE(parse_mac("02:00:0a:ff:00", mac));
  EXPECT_FALSE(parse_mac("02:00:0a:ff:00:100", mac));
}

TEST(AppHeaderTest, BitLayoutMatchesWireMd) {
  const AppHeader h{0x0a000002, 0x1234, 1000};
  EXPECT_EQ(h.word(), 0x0a00000212340000ull | 1000);
  EXPECT_EQ(AppHeader::from_word(h.word()), h);
  EXPECT_EQ(h.payload_words(), 125u);
  EXPECT_EQ((AppHeader{0, 0, 1}).payload_words(), 1u);
  EXPECT_EQ((AppHeader{0, 0, 65535}).payload_words(), 8192u);
}

}  // namespace
}  // namespace nanopu
