// The load generator's modelled column (tools/loadgen/modelled_latency.h):
// built from the timing model's stage costs and each service's declared
// work, so it moves the way the parameters say it must.
#include "tools/loadgen/modelled_latency.h"

#include <gtest/gtest.h>

#include "model/timing/timing_params.h"

namespace nanopu::apps {
namespace {

const model::TimingParams kParams{};  // the osdi21 set

LoadGenOptions open_loop(double rate) {
  LoadGenOptions o;
  o.rate = rate;
  return o;
}

TEST(ModelledLatencyTest, ClosedLoopWithOneOutstandingIsTheUnloadedPath) {
  ModelledService s;
  s.kinds = {{0.5, 100, 600}, {0.5, 100, 900}};
  LoadGenOptions o;
  o.outstanding = 1;
  const ModelledLatency m = model_service(s, o, 1000, kParams);
  EXPECT_DOUBLE_EQ(m.min_ns, 600);
  EXPECT_DOUBLE_EQ(m.max_ns, 900);
  EXPECT_NEAR(m.mean_ns, 750, 30);
  // With 20 outstanding every request waits for the others' core time.
  o.outstanding = 20;
  EXPECT_DOUBLE_EQ(model_service(s, o, 1000, kParams).min_ns, 2000);
}

TEST(ModelledLatencyTest, LightLoadIsThePathAndTheTailGrowsWithLoad) {
  ModelledService s;
  s.kinds = {{1, 500, 1200}};
  const ModelledLatency light = model_service(s, open_loop(1e4), 20000, kParams);
  EXPECT_NEAR(light.p50_ns, 1200, 5);
  const ModelledLatency heavy = model_service(s, open_loop(1.8e6), 20000, kParams);  // 90 % busy
  EXPECT_GT(heavy.p99_ns, 3 * light.p99_ns);
  // Two cores by JBSQ carry the same load with a far shorter tail.
  s.cores = 2;
  s.jbsq = true;
  EXPECT_LT(model_service(s, open_loop(1.8e6), 20000, kParams).p99_ns, heavy.p99_ns / 2);
}

TEST(ModelledLatencyTest, TheNaiveKvVariantPaysItsDeclaredCopy) {
  const ModelledLatency reg = model_kv_latency(open_loop(1e4), 0.5, 1, false, false, 20000, kParams);
  const ModelledLatency naive = model_kv_latency(open_loop(1e4), 0.5, 1, false, true, 20000, kParams);
  EXPECT_GT(naive.p50_ns, reg.p50_ns);
  EXPECT_NE(reg.how.find("register-file"), std::string::npos);
  // Near the register-file variant's saturation the naive one queues more.
  const ModelledLatency reg_hi = model_kv_latency(open_loop(4e6), 0.5, 1, false, false, 20000, kParams);
  const ModelledLatency naive_hi = model_kv_latency(open_loop(4e6), 0.5, 1, false, true, 20000, kParams);
  EXPECT_GT(naive_hi.p99_ns, reg_hi.p99_ns);
}

TEST(ModelledLatencyTest, ReplicatedServicesComposeTheirHops) {
  const ModelledLatency rdma = model_rdma_latency(open_loop(1e4), 20000, kParams);
  const ModelledLatency chain = model_chain_latency(open_loop(1e4), 3, 1.0, 20000, kParams);
  const ModelledLatency raft = model_raft_latency(open_loop(1e4), 3, 20000, kParams);
  EXPECT_GT(rdma.p50_ns, 0);
  EXPECT_GT(chain.p50_ns, rdma.p50_ns);  // four links and three relays against two links
  EXPECT_GT(raft.p50_ns, rdma.p50_ns);
  // All reads at the tail: one round trip, shorter than a WRITE's chain.
  EXPECT_LT(model_chain_latency(open_loop(1e4), 3, 0.0, 20000, kParams).p50_ns, chain.p50_ns);
}

}  // namespace
}  // namespace nanopu::apps
