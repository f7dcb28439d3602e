// Google Benchmark microbenchmarks of the scheduler and core selection, each
// beside a raw reference run in the same process: fiber switch vs a bare
// Boost.Context switch; JBSQ decision vs RSS; HTS decision.
#include <benchmark/benchmark.h>

#include <boost/context/fiber.hpp>
#include <boost/context/protected_fixedsize_stack.hpp>

#include "nic/core_select/core_selector.h"
#include "scheduler/fiber.h"
#include "scheduler/hts_policy.h"

namespace nanopu {
namespace {

// One resume + one suspend = two switches.
void BM_FiberSwitch(benchmark::State& state) {
  sched::Fiber* self = nullptr;
  bool stop = false;
  sched::Fiber f([&] {
    while (!stop) self->suspend();
  });
  self = &f;
  for (auto _ : state) f.resume();
  stop = true;
  f.resume();
  state.SetItemsProcessed(2 * state.iterations());
  state.counters["ns_per_switch"] = benchmark::Counter(
      2 * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_FiberSwitch);

// Reference: Boost.Context fiber switches with nothing of nanopu around them.
void BM_RawBoostFiberSwitch(benchmark::State& state) {
  namespace ctx = boost::context;
  bool stop = false;
  ctx::fiber f(std::allocator_arg, ctx::protected_fixedsize_stack(256 * 1024),
               [&](ctx::fiber&& caller) {
                 while (!stop) caller = std::move(caller).resume();
                 return std::move(caller);
               });
  for (auto _ : state) f = std::move(f).resume();
  stop = true;
  f = std::move(f).resume();
  state.counters["ns_per_switch"] = benchmark::Counter(
      2 * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_RawBoostFiberSwitch);

void select_bench(benchmark::State& state, CoreSelectPolicy p) {
  CoreSelector s(p, 2);
  uint32_t out[4] = {1, 0, 1, 1};
  bool bound[4] = {true, true, true, true};
  uint64_t h = 1;
  for (auto _ : state) {
    h = h * 6364136223846793005ull + 1;
    out[h & 3] = static_cast<uint32_t>((h >> 8) & 1);
    benchmark::DoNotOptimize(s.select(out, bound, 4, h));
  }
}
void BM_JbsqSelect4Cores(benchmark::State& state) { select_bench(state, CoreSelectPolicy::kJbsq); }
void BM_RssSelect4Cores(benchmark::State& state) { select_bench(state, CoreSelectPolicy::kRss); }
BENCHMARK(BM_JbsqSelect4Cores);
BENCHMARK(BM_RssSelect4Cores);

void BM_HtsShouldSwitch4Threads(benchmark::State& state) {
  sched::HtsParams prm;
  prm.t0 = 1000;
  prm.idle_timeout = 1000;
  sched::HtsPolicy p(prm);
  sched::ThreadState ts[4];
  for (int i = 0; i < 4; ++i) {
    ts[i].present = true;
    ts[i].priority = static_cast<uint8_t>(i);
    ts[i].has_msg = true;
    ts[i].head_ts = static_cast<uint64_t>(10 * i);
  }
  sched::HtsPolicy::on_msg_start(ts[1], 0);
  uint64_t now = 0;
  for (auto _ : state) benchmark::DoNotOptimize(p.should_switch(ts, 4, 1, ++now % 900, false));
}
BENCHMARK(BM_HtsShouldSwitch4Threads);

}  // namespace
}  // namespace nanopu

BENCHMARK_MAIN();
