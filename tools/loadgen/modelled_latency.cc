#include "tools/loadgen/modelled_latency.h"

#include <algorithm>

#include "absl/strings/str_format.h"
#include "apps/chain/chain_protocol.h"
#include "apps/compute/word_service.h"
#include "apps/chain/chain_store.h"
#include "apps/dot/dot_protocol.h"
#include "apps/dot/dot_service.h"
#include "nanopu/seeded_draw.h"
#include "tools/loadgen/othello_reference.h"
#include "apps/loopback/loopback.h"
#include "apps/mica/kv_protocol.h"
#include "apps/mica/kv_service.h"
#include "apps/othello/othello_board.h"
#include "apps/othello/othello_protocol.h"
#include "apps/othello/othello_service.h"
#include "apps/raft/raft_protocol.h"
#include "apps/rdma/rdma_protocol.h"
#include "model/timing/timing_model.h"
#include "model/queueing/virtual_host.h"
#include "runtime/client_main/modelled_service.h"

namespace nanopu::apps {

using loadgen::core_ns;
using loadgen::words_of;

ModelledLatency model_latency(const LoadGenOptions& o, uint64_t samples, const model::TimingParams& p) {
  const model::TimingModel m(p);
  const double service_cycles = static_cast<double>(o.service_cycles) / kServiceCyclesPerNs * p.clock_ghz;
  ModelledService s;
  s.kinds = {rpc_kind(m, 1, o.msg_bytes, o.msg_bytes, service_cycles)};
  s.how = absl::StrFormat("%u-byte loopback with %.0f ns of declared service time", o.msg_bytes,
                          static_cast<double>(o.service_cycles) / kServiceCyclesPerNs);
  if (o.service_long_fraction > 0) {  // bimodal: the long requests are a kind of their own
    const double long_cycles = static_cast<double>(o.service_long_cycles) / kServiceCyclesPerNs * p.clock_ghz;
    s.kinds[0].share = 1 - o.service_long_fraction;
    s.kinds.push_back(rpc_kind(m, o.service_long_fraction, o.msg_bytes, o.msg_bytes, long_cycles));
    s.how += absl::StrFormat(", %.2f%% of the requests %.0f ns", 100 * o.service_long_fraction,
                             static_cast<double>(o.service_long_cycles) / kServiceCyclesPerNs);
  }
  return model_service(s, o, samples, p);
}

ModelledLatency model_kv_latency(const LoadGenOptions& o, double set_fraction, uint32_t partitions,
                                 bool jbsq, bool naive, uint64_t samples, const model::TimingParams& p) {
  const model::TimingModel m(p);
  const double work = kKvTableCycles + (naive ? kKvValueWords * kKvNaiveCopyCyclesPerWord : 0);
  ModelledService s;
  s.kinds = {rpc_kind(m, 1 - set_fraction, kKvGetBytes, kKvValueReplyBytes, work),
             rpc_kind(m, set_fraction, kKvSetBytes, kKvStatusReplyBytes, work)};
  s.cores = partitions;
  s.jbsq = jbsq;
  s.how = absl::StrFormat("kv %s: GET %.0f ns, SET %.0f ns unloaded, %.0f cycles of declared work",
                          naive ? "naive" : "register-file", s.kinds[0].path_ns, s.kinds[1].path_ns, work);
  return model_service(s, o, samples, p);
}

ModelledLatency model_chain_latency(const LoadGenOptions& o, size_t replicas, double write_fraction,
                                    uint64_t samples, const model::TimingParams& p) {
  const model::TimingModel m(p);
  const double store_ns = m.cycles_ns(kChainStoreCycles);
  std::vector<size_t> hops;
  for (size_t i = replicas; i-- > 0;) hops.push_back(chain_len(true));
  hops.push_back(chain_len(false));
  // The tail's core per request: every WRITE and every READ pass it.
  const double tail_ns = core_ns(m, chain_len(true), chain_len(true), kChainStoreCycles);
  ModelledService s;
  s.kinds = {{write_fraction, tail_ns, m.path_round_trip_ns(hops, std::vector<double>(replicas, store_ns))},
             {1 - write_fraction, tail_ns,
              m.path_round_trip_ns({chain_len(false), chain_len(true)}, {store_ns})}};
  s.how = absl::StrFormat(
      "%zu replicas: WRITE %.0f ns through the chain, READ %.0f ns at the tail unloaded, store work "
      "%.0f cycles (declared), queued at the tail",
      replicas, s.kinds[0].path_ns, s.kinds[1].path_ns, kChainStoreCycles);
  return model_service(s, o, samples, p);
}

ModelledLatency model_rdma_latency(const LoadGenOptions& o, uint64_t samples, const model::TimingParams& p) {
  const model::TimingModel m(p);
  const size_t in = rdma_request_len(RdmaOp::kRead, 1), out = rdma_reply_len(RdmaOp::kRead, 1);
  ModelledService s;
  s.kinds = {{1, core_ns(m, in, out, kRdmaOpCycles),
              m.path_round_trip_ns({in, out}, {m.cycles_ns(kRdmaOpCycles)})}};
  s.how = absl::StrFormat("a 1-word READ as every op, %.0f ns unloaded, %.0f cycles of declared work",
                          s.kinds[0].path_ns, kRdmaOpCycles);
  return model_service(s, o, samples, p);
}

ModelledLatency model_raft_latency(const LoadGenOptions& o, size_t servers, uint64_t samples,
                                   const model::TimingParams& p) {
  const model::TimingModel m(p);
  const double work = m.cycles_ns(kRaftOpCycles);
  const size_t request = raft_client_request_len(RaftOp::kPut);
  const size_t append = 8 * (kRaftAppendHeadWords + kRaftEntryWords);
  const size_t ack = 8 * 4;
  const size_t reply = raft_client_reply_len(false);
  const double rtt = servers <= 1 ? m.path_round_trip_ns({request, reply}, {work})
                                  : m.path_round_trip_ns({request, append, ack, reply}, {work, work, work});
  // The leader's core per request: the client's request and the reply, an
  // append out and an ack in per follower, the declared work twice (append
  // to its log, apply on commit).
  const size_t followers = servers > 0 ? servers - 1 : 0;
  const double leader_ns = core_ns(m, request, reply, 2 * kRaftOpCycles) +
                           followers * (core_ns(m, 0, append, 0) + core_ns(m, ack, 0, 0));
  ModelledService s;
  s.kinds = {{1, leader_ns, rtt}};
  s.how = absl::StrFormat(
      "PUT, %zu servers: client, leader, follower, leader, client, %.0f ns unloaded; %.0f cycles of "
      "declared work per relay; no switch latency (the paper's 300 ns switch is not in the model); "
      "queued at the leader",
      servers, rtt, kRaftOpCycles);
  return model_service(s, o, samples, p);
}

ModelledLatency model_dot_latency(const LoadGenOptions& o, uint32_t words, bool pairs, bool naive,
                                  uint64_t samples, const model::TimingParams& p) {
  const model::TimingModel m(p);
  const size_t in = 8 * dot_request_words(pairs ? kDotPairs : kDotData, words);
  const double work = words * kDotCyclesPerIndex + (naive ? words_of(in) * kDotNaiveCopyCyclesPerWord : 0);
  ModelledService s;
  s.kinds = {rpc_kind(m, 1, in, kDotReplyBytes, work)};
  s.how = absl::StrFormat("dot %s, %u indices (%s layout): %.0f ns unloaded, %.0f cycles of declared work",
                          naive ? "naive" : "optimal", words, pairs ? "Listing 2" : "tester", s.kinds[0].path_ns, work);
  return model_service(s, o, samples, p);
}

ModelledLatency model_compute_latency(const LoadGenOptions& o, const std::vector<ComputeSample>& requests,
                                      bool memory_path, uint32_t cores, bool jbsq, const std::string& what,
                                      uint64_t samples, const model::TimingParams& p) {
  const model::TimingModel m(p);
  ModelledService s;
  double work = 0;
  for (const ComputeSample& c : requests) {
    const double copy = memory_path ? kMemoryPathCyclesPerWord * (words_of(c.in_bytes) + words_of(c.out_bytes)) : 0;
    s.kinds.push_back(rpc_kind(m, 1, c.in_bytes, c.out_bytes, c.work_cycles + copy));
    work += (c.work_cycles + copy) / static_cast<double>(requests.size());
  }
  s.cores = cores;
  s.jbsq = jbsq;
  s.how = absl::StrFormat("%s (%s path): %.0f cycles of declared work on average", what,
                          memory_path ? "memory" : "register-file", work);
  return model_service(s, o, samples, p);
}

ModelledLatency model_othello_latency(const LoadGenOptions& o, uint32_t depth, uint32_t workers,
                                      uint64_t samples, const model::TimingParams& p) {
  const model::TimingModel m(p);
  SeededDraw rng(o.seed ^ 0x6f7468656c6c6full);
  ModelledService s;
  double nodes_total = 0;
  for (int i = 0; i < 100; ++i) {
    const RefPosition pos = ref_random_position(rng, 4 + static_cast<int>(rng() % 21));
    const Board b{ref_own(pos), ref_opp(pos)};
    Board next[64];
    const int k = depth > 0 ? children(b, next) : 0;
    if (workers == 0 || k == 0) {
      uint64_t nodes = 0;
      (void)negamax(b, static_cast<int>(depth), &nodes);
      nodes_total += static_cast<double>(nodes);
      s.kinds.push_back(rpc_kind(m, 1, kOthelloMapBytes, kOthelloReduceBytes, nodes * kOthelloCyclesPerNode));
      continue;
    }
    // The root reads the MAP and writes k MAPs, then reads k REDUCEs and
    // writes one; each worker searches its children one after another.
    std::vector<double> worker_ns(workers, 0);
    for (int c = 0; c < k; ++c) {
      uint64_t nodes = 0;
      (void)negamax(next[c], static_cast<int>(depth) - 1, &nodes);
      nodes_total += static_cast<double>(nodes);
      worker_ns[c % workers] += core_ns(m, kOthelloMapBytes, kOthelloReduceBytes, nodes * kOthelloCyclesPerNode);
    }
    const double slowest = *std::max_element(worker_ns.begin(), worker_ns.end());
    const double root_ns = (k + 1) * core_ns(m, kOthelloMapBytes, kOthelloReduceBytes, 0);
    const double path = m.rpc_round_trip_ns(kOthelloMapBytes, kOthelloReduceBytes, root_ns) +
                        m.rpc_round_trip_ns(kOthelloMapBytes, kOthelloReduceBytes, 0) + slowest;
    s.kinds.push_back({1, slowest, path});
  }
  s.how = absl::StrFormat("othello, %u plies, %s: %.0f positions searched per MAP on average", depth,
                          workers ? absl::StrFormat("one fan-out level to %u workers", workers) : "at the root",
                          nodes_total / 100);
  return model_service(s, o, samples, p);
}

}  // namespace nanopu::apps
