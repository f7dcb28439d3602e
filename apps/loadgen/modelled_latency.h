// The load generator's *modelled* column: the round trips the same load
// would have on nanoPU hardware (lib/timing), printed beside the measured
// ones. Open loop: the virtual-time host model fed Poisson arrivals at the
// offered rate (one server core, the request's declared service time plus
// the loopback's own cycles). Closed loop: each of the `outstanding`
// requests waits for the others' core time; no randomness, every quantile
// the same.
#pragma once

#include "apps/loadgen/loadgen.h"
#include "lib/timing/timing_params.h"

namespace nanopu::apps {

[[nodiscard]] ModelledLatency model_latency(const LoadGenOptions& o, uint64_t samples,
                                            const timing::TimingParams& p);

}  // namespace nanopu::apps
