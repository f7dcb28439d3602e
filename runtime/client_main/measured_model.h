// The load generator's modelled column built from the run's own messages
// (any client of the load engine: nanopu-loadgen and nanopu/loadgen_main.h)
// (docs/design.md §10, "Modelled latency from a real run"): for every
// answered request, what the nanoPU would have taken for it.
//
// - The server's on-core time comes from the run: its thread stamps each
//   reply with the time it spent on the request (Thread::sender_core_ns,
//   the header's core_time). The emulator's register-file cost, measured
//   at start-up (model::HostCosts::api_ns), is taken out and the model's
//   (app_fixed_cycles + words × app_cycles_per_word) put in; the rest, the
//   application's own work, is kept as measured (equal wall time).
// - Queueing is replayed in virtual time on the server's modelled cores by
//   the runtime's own CoreSelector and HtsPolicy (model/queueing/virtual_host.h):
//   open loop at the measured send times, closed loop with `outstanding`
//   requests, each sent when the modelled reply to the one before it is in.
// - The rest of each round trip (both NICs' fast paths, wires, serialization)
//   is the model's unloaded path (TimingModel::rpc_round_trip_ns).
#pragma once

#include <cstdint>
#include <string>

#include "model/timing/calibration.h"
#include "model/timing/timing_params.h"
#include "nanopu/loadgen.h"

namespace nanopu::loadgen {

// What the replay needs to know of the server.
struct MeasuredService {
  uint32_t cores = 1;  // cores the requests spread over
  bool jbsq = false;   // any core takes any request (JBSQ); else one partition per core, round robin
  std::string what;    // e.g. "64-byte echo"
};

// The modelled round trips of r.samples. `how` stays empty (and `why_not`
// says why) when no reply carried a server core time (a prototype server,
// or a service whose replies come from another host than the one that
// worked on the request).
[[nodiscard]] ModelledLatency model_measured(const Options& o, const Result& r,
                                             const MeasuredService& s, const model::HostCosts& h,
                                             const model::TimingParams& p, std::string* why_not);

}  // namespace nanopu::loadgen
