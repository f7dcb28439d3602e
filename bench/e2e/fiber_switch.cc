// measure_fiber_switch (bench/e2e/measurements.h): nanopu's fiber switch
// beside a bare Boost.Context switch, same loop, same run.
#include <rte_cycles.h>

#include <boost/context/fiber.hpp>
#include <boost/context/protected_fixedsize_stack.hpp>

#include "bench/e2e/measurements.h"
#include "model/timing/calibration.h"

namespace nanopu::bench {

ChildResult measure_fiber_switch(uint64_t switches) {
  ChildResult r;
  const double ns_per_tsc = 1e9 / static_cast<double>(rte_get_tsc_hz());
  const uint64_t rounds = switches / 2;
  r.v[0] = model::measure_fiber_switch_ns(static_cast<int>(rounds));
  {
    namespace ctx = boost::context;
    bool stop = false;
    ctx::fiber f(std::allocator_arg, ctx::protected_fixedsize_stack(256 * 1024),
                 [&](ctx::fiber&& caller) {
                   while (!stop) caller = std::move(caller).resume();
                   return std::move(caller);
                 });
    const uint64_t t0 = rte_rdtsc();
    for (uint64_t i = 0; i < rounds; ++i) f = std::move(f).resume();
    r.v[1] = static_cast<double>(rte_rdtsc() - t0) * ns_per_tsc / static_cast<double>(2 * rounds);
    stop = true;
    f = std::move(f).resume();
  }
  r.count = 2 * rounds;
  return r;
}

}  // namespace nanopu::bench
