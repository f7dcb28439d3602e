#include "runtime/platform/eal.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <vector>

namespace nanopu {
namespace {

bool has(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

TEST(EalArgsTest, CarryPrefixVdevsAndHugepageChoice) {
  EalParams c;
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
  EXPECT_TRUE(has(a, "--no-shconf"));  // no 13 MB memory map in /run/dpdk (runtime_dir.h)
  EXPECT_FALSE(has(a, "--in-memory"));
  EXPECT_TRUE(has(a, "--vdev=net_memif0,role=server,socket=/tmp/x.sock"));
  EXPECT_TRUE(has(a, "--vdev=net_null0"));
  EXPECT_TRUE(has(a, "--log-level=pmd.net.memif:8"));
  EXPECT_TRUE(has(a, "-v"));
  std::vector<std::string> h = build_eal_args(c, /*use_huge=*/true);
  EXPECT_TRUE(has(h, "--in-memory"));
  EXPECT_FALSE(has(h, "--no-huge"));
}

TEST(EalArgsTest, PciDevicesReplaceNoPciAndTelemetryIsOnUnlessTurnedOff) {
  EalParams c;
  std::vector<std::string> a = build_eal_args(c, false);
  EXPECT_FALSE(has(a, "--no-telemetry"));  // live counters by default
  EXPECT_FALSE(has(a, "-a"));
  c.telemetry = false;
  c.pci_devices = {"0000:03:00.0", "0000:03:00.1"};
  a = build_eal_args(c, false);
  EXPECT_TRUE(has(a, "--no-telemetry"));
  EXPECT_FALSE(has(a, "--no-pci"));  // the EAL probes the listed devices, and only those
  ASSERT_EQ(std::count(a.begin(), a.end(), "-a"), 2);
  const auto at = std::find(a.begin(), a.end(), "-a");
  EXPECT_EQ(*(at + 1), "0000:03:00.0");
  EXPECT_TRUE(has(a, "0000:03:00.1"));
}

TEST(EalArgsTest, UnpinnedLcoresMayRunOnEveryOnlineCpu) {
  EXPECT_EQ(floating_lcore_map({0, 1}, 2), "0@(0-1),1@(0-1)");
  EXPECT_EQ(floating_lcore_map({1}, 4), "1@(0-3)");
  EXPECT_EQ(floating_lcore_map({0}, 1), "0@0");
  EalParams c;
  c.lcores = {1, 0};
  EXPECT_TRUE(has(build_eal_args(c, false), "1,0"));  // pinned: DPDK's -l
  c.pin = false;
  const std::vector<std::string> a = build_eal_args(c, false);
  EXPECT_FALSE(has(a, "-l"));
  EXPECT_TRUE(has(a, "--lcores=" + floating_lcore_map({1, 0}, sysconf(_SC_NPROCESSORS_ONLN))));
  EXPECT_TRUE(has(a, "--main-lcore=1"));
  c.eal_lcore_map = "0@0,1@1";  // an explicit map wins
  EXPECT_TRUE(has(build_eal_args(c, false), "--lcores=0@0,1@1"));
}

TEST(EalArgsTest, DefaultFilePrefixIsUniquePerProcess) {
  std::vector<std::string> a = build_eal_args(EalParams{}, false);
  EXPECT_TRUE(has(a, "--file-prefix=nanopu-" + std::to_string(getpid())));
}

}  // namespace
}  // namespace nanopu
