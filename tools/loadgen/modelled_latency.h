// nanopu-loadgen's *modelled* column for each of nanopu's own services:
// the kinds of request it serves and their declared work, queued on the
// core where requests queue (the server's, the chain's tail, the Raft
// leader), by the generic model of runtime/client_main/modelled_service.h.
#pragma once

#include <string>
#include <vector>

#include "tools/loadgen/loadgen.h"
#include "model/timing/timing_model.h"
#include "model/timing/timing_params.h"
#include "model/queueing/virtual_host.h"
#include "runtime/client_main/modelled_service.h"

namespace nanopu::apps {

using loadgen::fill_quantiles;
using loadgen::model_service;
using loadgen::ModelledKind;
using loadgen::ModelledService;
using loadgen::rpc_kind;
using loadgen::server_host_config;

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
