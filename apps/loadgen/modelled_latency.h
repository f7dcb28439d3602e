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

// Chain replication (apps/chain): a WRITE passes client, head, ..., tail,
// client; a READ is one round trip to the tail; each replica does its
// declared store work (kChainStoreCycles). Unloaded (no queueing modelled;
// closed loop: at least `outstanding` requests' work at the tail): a
// two-valued distribution, READs below WRITEs.
// One-sided RDMA (apps/rdma): one round trip of a 1-word READ (40 bytes
// out, 32 back) with the declared work (kRdmaOpCycles); unloaded.
[[nodiscard]] ModelledLatency model_rdma_latency(const LoadGenOptions& o, const timing::TimingParams& p);

// Raft (apps/raft): client, leader, a follower (the others in parallel),
// leader, client, each relay with the declared state-machine work
// (kRaftOpCycles); unloaded, one value for every quantile.
[[nodiscard]] ModelledLatency model_raft_latency(const LoadGenOptions& o, size_t servers,
                                                 const timing::TimingParams& p);

[[nodiscard]] ModelledLatency model_chain_latency(const LoadGenOptions& o, size_t replicas,
                                                  double write_fraction, const timing::TimingParams& p);

}  // namespace nanopu::apps
