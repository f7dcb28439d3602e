// The modelled column built from a run's replies (runtime/client_main/measured_model.h):
// each reply's measured server core time, less the calibrated API cost, plus
// the model's; queueing replayed; the unloaded path around it.
#include "runtime/client_main/measured_model.h"

#include <gtest/gtest.h>

#include "model/timing/timing_model.h"

namespace nanopu::loadgen {
namespace {

const model::TimingParams kParams{};  // the osdi21 set
const model::TimingModel kModel(kParams);

model::HostCosts costs() {
  model::HostCosts h;
  h.message_io_ns = 40;
  h.word_io_ns = 1;
  return h;
}

// 64-byte echo: 2 headers + 8 + 8 words = 18 words, API cost 58 ns; the
// model's loopback core: app_fixed_cycles + 8 words at 3.2 GHz.
constexpr double kApiNs = 58;
const double kModelCoreNs = kModel.cycles_ns(kParams.app_fixed_cycles + 8 * kParams.app_cycles_per_word);
double outside_ns() {
  return kModel.rpc_round_trip_ns(64, 64, 0) - kModel.cycles_ns(kParams.app_fixed_cycles + 8 * kParams.app_cycles_per_word);
}

Result replies(const std::vector<std::pair<double, double>>& sent_and_core) {
  Result r;
  for (const auto& [sent, core] : sent_and_core) r.samples.push_back({sent, 0, core, 64, 64});
  return r;
}

TEST(MeasuredModelTest, EachReplyIsTheUnloadedPathAroundItsOwnModelledCoreTime) {
  Options o;  // closed loop, 1 outstanding
  std::string why;
  // 1000 ns of the server's own work, then 5000 ns: the distribution follows.
  std::vector<std::pair<double, double>> s;
  for (int i = 0; i < 100; ++i) s.push_back({i * 1e4, (i < 90 ? 1000 : 5000) + kApiNs});
  const ModelledLatency m = model_measured(o, replies(s), {1, false, "echo"}, costs(), kParams, &why);
  ASSERT_FALSE(m.how.empty()) << why;
  EXPECT_EQ(m.source, ModelSource::kMeasured);
  EXPECT_EQ(m.messages, 100u);
  const double switch_ns = kModel.context_switch_ns();  // the first request loads the thread
  EXPECT_NEAR(m.p50_ns, outside_ns() + kModelCoreNs + 1000, 0.01);
  EXPECT_NEAR(m.p99_ns, outside_ns() + kModelCoreNs + 5000, 0.01);
  EXPECT_NEAR(m.max_ns, outside_ns() + kModelCoreNs + 5000 + 0, switch_ns + 0.01);
  EXPECT_NEAR(m.measured_core_p50_ns, 1000 + kApiNs, 0.01);
  EXPECT_NEAR(m.modelled_core_p50_ns, 1000 + kModelCoreNs, 0.01);
}

TEST(MeasuredModelTest, AnEchoFasterThanTheCalibratedApiCostIsTheModelsLoopback) {
  Options o;
  std::string why;
  const ModelledLatency m = model_measured(o, replies({{0, 30}, {1e4, 30}, {2e4, 30}}), {1, false, "echo"},
                                           costs(), kParams, &why);
  EXPECT_NEAR(m.p50_ns, outside_ns() + kModelCoreNs, 0.01);
}

TEST(MeasuredModelTest, OpenLoopRequestsSentTogetherQueueAtTheServer) {
  Options o;
  o.rate = 1000;
  std::string why;
  const ModelledLatency m = model_measured(o, replies({{5000, 1000 + kApiNs}, {5000, 1000 + kApiNs}}),
                                           {1, false, "echo"}, costs(), kParams, &why);
  const double core = 1000 + kModelCoreNs, sw = kModel.context_switch_ns();
  EXPECT_NEAR(m.min_ns, outside_ns() + sw + core, 0.01);
  EXPECT_NEAR(m.max_ns, outside_ns() + sw + 2 * core, 0.01);
  // On two cores by JBSQ they do not wait for each other.
  const ModelledLatency two = model_measured(o, replies({{5000, 1000 + kApiNs}, {5000, 1000 + kApiNs}}),
                                             {2, true, "echo"}, costs(), kParams, &why);
  EXPECT_NEAR(two.max_ns, outside_ns() + sw + core, 0.01);
}

TEST(MeasuredModelTest, RepliesWithoutACoreTimeAreNotModelled) {
  Options o;
  std::string why;
  const ModelledLatency m = model_measured(o, replies({{0, 0}, {1, 0}}), {1, false, "echo"}, costs(), kParams, &why);
  EXPECT_TRUE(m.how.empty());
  EXPECT_NE(why.find("core time"), std::string::npos) << why;
  const ModelledLatency none = model_measured(o, Result{}, {1, false, "echo"}, costs(), kParams, &why);
  EXPECT_TRUE(none.how.empty());
  EXPECT_NE(why.find("no reply"), std::string::npos) << why;
}

}  // namespace
}  // namespace nanopu::loadgen
