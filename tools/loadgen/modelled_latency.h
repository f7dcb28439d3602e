// The load generator's *modelled* column: the round trips the same load
// would have on nanoPU hardware (model), printed beside the measured
// ones. Every service is described the same way: the kinds of request it
// serves, each with the unloaded round trip from the model's stage costs
// and the service's declared work, and the time each takes on the core
// where requests queue (the server's, the chain's tail, the Raft leader).
// Open loop: the virtual-time host model (model/virtual/virtual_host.h) fed
// Poisson arrivals at the offered rate queues them on that core; the rest
// of each round trip is added unloaded. Closed loop: each of the
// `outstanding` requests waits for the others' core time; no randomness.
#pragma once

#include <string>
#include <vector>

#include "tools/loadgen/loadgen.h"
#include "model/timing/timing_model.h"
#include "model/timing/timing_params.h"
#include "model/virtual/virtual_host.h"

namespace nanopu::apps {

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

[[nodiscard]] ModelledLatency model_service(const ModelledService& s, const LoadGenOptions& o,
                                            uint64_t samples, const model::TimingParams& p);

// The echo/increment/service loopback: one request kind of o.msg_bytes
// with o.service_cycles of declared work.
[[nodiscard]] ModelledLatency model_latency(const LoadGenOptions& o, uint64_t samples,
                                            const model::TimingParams& p);

// MICA (apps/mica): GETs (48 bytes out, 528 back) and SETs (560 out, 24
// back) with the table's declared work (kKvTableCycles) and, for the naive
// variant, its copy (kKvNaiveCopyCyclesPerWord); `partitions` cores, by key
// hash or (jbsq) any core.
[[nodiscard]] ModelledLatency model_kv_latency(const LoadGenOptions& o, double set_fraction,
                                               uint32_t partitions, bool jbsq, bool naive,
                                               uint64_t samples, const model::TimingParams& p);

// Chain replication (apps/chain): a WRITE passes client, head, ..., tail,
// client; a READ is one round trip to the tail; each replica does its
// declared store work (kChainStoreCycles). Requests queue at the tail, which
// every WRITE and READ passes.
[[nodiscard]] ModelledLatency model_chain_latency(const LoadGenOptions& o, size_t replicas,
                                                  double write_fraction, uint64_t samples,
                                                  const model::TimingParams& p);

// One-sided RDMA (apps/rdma): one round trip of a 1-word READ (40 bytes
// out, 32 back) with the declared work (kRdmaOpCycles), queued at the
// server's core.
[[nodiscard]] ModelledLatency model_rdma_latency(const LoadGenOptions& o, uint64_t samples,
                                                 const model::TimingParams& p);

// Raft (apps/raft): client, leader, a follower (the others in parallel),
// leader, client, each relay with the declared state-machine work
// (kRaftOpCycles); requests queue at the leader, which takes the client's
// request, sends an append to and takes an ack from every follower, and
// replies.
[[nodiscard]] ModelledLatency model_raft_latency(const LoadGenOptions& o, size_t servers,
                                                 uint64_t samples, const model::TimingParams& p);

// Dot product (apps/dot): one request of `words` indices in the tester's
// layout or Listing 2's (pairs), a 32-byte reply, the declared work per
// index (kDotCyclesPerIndex) and, for the naive variant, its copy.
[[nodiscard]] ModelledLatency model_dot_latency(const LoadGenOptions& o, uint32_t words, bool pairs, bool naive,
                                                uint64_t samples, const model::TimingParams& p);

// Othello (apps/othello): MAPs of random positions searched `depth` plies,
// the declared work per position searched (kOthelloCyclesPerNode); with
// `workers`, the root fans the children out one level (round-robin) and
// requests queue at the busiest worker; without, at the root.
[[nodiscard]] ModelledLatency model_othello_latency(const LoadGenOptions& o, uint32_t depth, uint32_t workers,
                                                    uint64_t samples, const model::TimingParams& p);

// A compute service (apps/setint, hdsearch, nbody, classifier, inttel):
// each sampled request its own kind, with its bytes and declared work;
// `memory_path` adds the traditional path's copy of both messages
// (kMemoryPathCyclesPerWord); `cores` cores, by JBSQ or one context each.
struct ComputeSample {
  size_t in_bytes = 0, out_bytes = 0;
  double work_cycles = 0;
};
[[nodiscard]] ModelledLatency model_compute_latency(const LoadGenOptions& o, const std::vector<ComputeSample>& requests,
                                                    bool memory_path, uint32_t cores, bool jbsq,
                                                    const std::string& what, uint64_t samples,
                                                    const model::TimingParams& p);

}  // namespace nanopu::apps
