// The load generator's *modelled* column from a service's declared work
// (docs/design.md §10): the kinds of request a service serves, each with its
// unloaded round trip from the model's stage costs and its time on the core
// where requests queue, replayed in virtual time (model/queueing) under the
// run's load. Open loop: Poisson arrivals at the offered rate; closed loop:
// each of `outstanding` requests waits for the others' core time.
// nanopu-loadgen's per-service models (tools/loadgen/modelled_latency.h) and
// an author's client (nanopu/loadgen_main.h, DeclaredKind) both use it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "model/timing/timing_model.h"
#include "model/timing/timing_params.h"
#include "model/queueing/virtual_host.h"
#include "nanopu/loadgen.h"

namespace nanopu::loadgen {

// One kind of request in a service's mix.
struct ModelledKind {
  double share = 1;    // fraction of the requests
  double core_ns = 0;  // time on the queueing core
  double path_ns = 0;  // unloaded round trip, core_ns included
};

struct ModelledService {
  std::vector<ModelledKind> kinds;
  uint32_t cores = 1;  // cores the requests spread over
  bool jbsq = false;   // any core takes any request (JBSQ); else one partition per core
  std::string how;     // what was modelled, without the load part
};

[[nodiscard]] constexpr double words_of(size_t bytes) { return static_cast<double>((bytes + 7) / 8); }

// The core time of a request that reads in_bytes and writes out_bytes
// through the FIFOs (the loopback's per-word cost, counted for the larger
// side as TimingModel::relay_ns does) plus declared work.
[[nodiscard]] double core_ns(const model::TimingModel& m, size_t in_bytes, size_t out_bytes, double work_cycles);

// One request/reply round trip between two nanoPUs with `work_cycles` of
// declared work on the server: its core time and unloaded round trip.
[[nodiscard]] ModelledKind rpc_kind(const model::TimingModel& m, double share, size_t in_bytes,
                                    size_t out_bytes, double work_cycles);
// The server in the virtual-time host: `cores` cores, requests spread by
// JBSQ over all of them (jbsq) or one partition per core.
[[nodiscard]] model::VirtualHostConfig server_host_config(const model::TimingModel& m, uint32_t cores,
                                                           bool jbsq, const model::ServiceTime& st);
// min, mean and the percentiles of k's responses into r.
void fill_quantiles(model::ClassResult& k, ModelledLatency* r);

[[nodiscard]] ModelledLatency model_service(const ModelledService& s, const Options& o, uint64_t samples,
                                            const model::TimingParams& p);

}  // namespace nanopu::loadgen
