#include "lib/timing/timing_model.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace nanopu::timing {
namespace {

TimingParams set(const char* name) { return *builtin_timing_params(name); }

TEST(TimingModelTest, Set000ReproducesFigure2Totals) {
  const TimingModel m(set("osdi21"));
  EXPECT_NEAR(m.loopback_ns(8), 17.0, 0.1);      // nanoPU (OSDI'21) §5.2.1
  EXPECT_NEAR(m.wire_to_wire_ns(8), 69.0, 0.1);
  double sum = 0;
  for (const Stage& s : m.loopback_stages(8)) sum += s.ns;
  EXPECT_DOUBLE_EQ(sum, m.loopback_ns(8));
  EXPECT_NEAR(m.context_switch_ns(), 50.0, 1e-9);  // 160 cycles at 3.2 GHz
}

TEST(TimingModelTest, Set002ReproducesItsTotals) {
  const TimingModel m(set("tail"));
  EXPECT_NEAR(m.loopback_ns(8), 13.0, 0.1);
  EXPECT_NEAR(m.wire_to_wire_ns(8), 65.0, 0.1);
}

TEST(TimingModelTest, TraditionalNicIsThreeTimesSlowerAt8BytesAndTheGapNarrows) {
  const TimingModel m(set("osdi21"));
  EXPECT_NEAR(m.traditional_loopback_ns(8), 51.0, 0.5);  // nanoPU (OSDI'21) §5.2.1
  const double r8 = m.traditional_loopback_ns(8) / m.loopback_ns(8);
  const double r1k = m.traditional_loopback_ns(1024) / m.loopback_ns(1024);
  EXPECT_NEAR(r8, 3.0, 0.15);
  EXPECT_LT(r1k, r8);  // serialization dominates large messages (Fig. 3)
  EXPECT_GT(m.loopback_ns(1024), m.loopback_ns(8));
}

// A path through one server is an RPC round trip; each further server adds
// a link and a relay.
TEST(TimingModelTest, APathThroughServersComposesRelaysAndLinks) {
  const TimingModel m(builtin_timing_params("osdi21").value());
  EXPECT_NEAR(m.path_round_trip_ns({64, 64}, {10}), m.rpc_round_trip_ns(64, 64, 10), 1e-9);
  const double two = m.path_round_trip_ns({64, 64, 64}, {10, 10});
  EXPECT_NEAR(two - m.path_round_trip_ns({64, 64}, {10}),
              m.params().link_latency_ns + m.relay_ns(64, 64) + 10, 1e-9);
  EXPECT_EQ(m.path_round_trip_ns({64}, {10}), 0);  // hop and server counts disagree
}

TEST(TimingModelTest, BoundFormula) {
  const TimingModel m(set("osdi21"));
  // t_n + k t0 + (k-1) t_c with t_n = 2 links + the 8-byte loopback (nanoPU (OSDI'21) §5.2.2: 2.15 us).
  const double t_n = 2 * 43.75 + m.loopback_ns(8);
  EXPECT_DOUBLE_EQ(m.response_bound_ns(1000, 2), t_n + 2000 + 50);
  EXPECT_NEAR(m.response_bound_ns(1000, 2), 2150, 10);
  EXPECT_DOUBLE_EQ(m.response_bound_ns(1000, 1), t_n + 1000);
}

TEST(TimingModelTest, ShippedParameterFilesMatchTheBuiltInSets) {
  for (const char* name : {"osdi21", "tail"}) {
    absl::StatusOr<TimingParams> p =
        load_timing_params(std::string(NANOPU_SOURCE_DIR) + "/lib/timing/nanopu-" + name + ".params");
    ASSERT_TRUE(p.ok()) << p.status();
    const TimingModel a(*p), b(set(name));
    EXPECT_EQ(p->name, name);
    EXPECT_DOUBLE_EQ(a.wire_to_wire_ns(8), b.wire_to_wire_ns(8)) << name;
    EXPECT_DOUBLE_EQ(a.traditional_loopback_ns(512), b.traditional_loopback_ns(512)) << name;
  }
}

TEST(TimingModelTest, ParameterErrorsNameTheLine) {
  absl::StatusOr<TimingParams> p = parse_timing_params("clock_ghz = 3.2\nbogus = 1\n", "x.params");
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("x.params:2"), std::string::npos) << p.status();
  p = parse_timing_params("link_gbps = fast\n", "y");
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("link_gbps"), std::string::npos);
  EXPECT_FALSE(parse_timing_params("clock_ghz = 0\n", "z").ok());
  EXPECT_FALSE(builtin_timing_params("001").ok());
}

}  // namespace
}  // namespace nanopu::timing
