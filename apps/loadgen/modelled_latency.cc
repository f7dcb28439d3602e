#include "apps/loadgen/modelled_latency.h"

#include <algorithm>

#include "absl/strings/str_format.h"
#include "apps/chain/chain_protocol.h"
#include "apps/chain/chain_store.h"
#include "apps/loopback/loopback.h"
#include "apps/raft/raft_protocol.h"
#include "apps/rdma/rdma_protocol.h"
#include "lib/timing/timing_model.h"
#include "lib/timing/virtual_host.h"

namespace nanopu::apps {

ModelledLatency model_latency(const LoadGenOptions& o, uint64_t samples, const timing::TimingParams& p) {
  const timing::TimingModel m(p);
  const double service_ns = static_cast<double>(o.service_cycles) / kServiceCyclesPerNs;
  const double words = static_cast<double>((o.msg_bytes + 7) / 8);
  // The server core's time per request: the echo's own cycles (already in
  // the loopback path) plus the declared service time.
  const double core_ns = m.cycles_ns(p.app_fixed_cycles + words * p.app_cycles_per_word) + service_ns;
  const double unloaded = m.rpc_round_trip_ns(o.msg_bytes, o.msg_bytes, service_ns);
  ModelledLatency r;
  if (o.rate <= 0) {
    const double rtt = std::max(unloaded, o.outstanding * core_ns);
    r.min_ns = r.mean_ns = r.p50_ns = r.p90_ns = r.p99_ns = r.p999_ns = r.max_ns = rtt;
    r.how = absl::StrFormat("closed loop, %u outstanding, one server core, parameter set %s",
                            o.outstanding, p.name);
    return r;
  }
  timing::VirtualHostConfig c;
  timing::ServiceTime s;
  s.mean_ns = core_ns;
  c.classes = {{"requests", 0, 1, s, {}}};
  c.context_switch_ns = m.context_switch_ns();
  c.fixed_response_ns = unloaded - core_ns;
  c.load_rps = o.rate;
  c.requests = std::clamp<uint64_t>(samples, 1000, 200000);
  c.seed = o.seed;
  timing::VirtualHostResult v = timing::run_virtual_host(c);
  timing::ClassResult& k = v.classes[0];
  r.min_ns = k.quantile_ns(0);
  r.mean_ns = k.mean_ns();
  r.p50_ns = k.quantile_ns(0.5);
  r.p90_ns = k.quantile_ns(0.9);
  r.p99_ns = k.quantile_ns(0.99);
  r.p999_ns = k.quantile_ns(0.999);
  r.max_ns = k.quantile_ns(1);
  r.how = absl::StrFormat("virtual time, Poisson %.0f req/s, one server core, parameter set %s",
                          o.rate, p.name);
  return r;
}

ModelledLatency model_chain_latency(const LoadGenOptions& o, size_t replicas, double write_fraction,
                                    const timing::TimingParams& p) {
  const timing::TimingModel m(p);
  const double store_ns = m.cycles_ns(kChainStoreCycles);
  std::vector<size_t> hops;
  for (size_t i = replicas; i-- > 0;) hops.push_back(chain_len(static_cast<uint32_t>(i), true));
  hops.push_back(chain_len(0, false));
  const double write_ns = m.path_round_trip_ns(hops, std::vector<double>(replicas, store_ns));
  const double read_ns = m.path_round_trip_ns({chain_len(0, false), chain_len(0, true)}, {store_ns});
  // The tail's core per request: every WRITE and every READ pass it.
  const double tail_core_ns =
      m.cycles_ns(p.app_fixed_cycles + (kChainFixedWords + kChainValueWords) * p.app_cycles_per_word) +
      store_ns;
  const double floor_ns = o.rate > 0 ? 0 : o.outstanding * tail_core_ns;
  const double w = std::max(write_ns, floor_ns), r = std::max(read_ns, floor_ns);
  auto q = [&](double quantile) { return quantile < 1 - write_fraction ? r : w; };
  ModelledLatency out;
  out.min_ns = write_fraction >= 1 ? w : r;
  out.max_ns = write_fraction <= 0 ? r : w;
  out.mean_ns = write_fraction * w + (1 - write_fraction) * r;
  out.p50_ns = q(0.5);
  out.p90_ns = q(0.9);
  out.p99_ns = q(0.99);
  out.p999_ns = q(0.999);
  out.how = absl::StrFormat(
      "unloaded, %zu replicas: WRITE %.0f ns through the chain, READ %.0f ns at the tail, "
      "store work %.0f cycles (declared), parameter set %s",
      replicas, write_ns, read_ns, kChainStoreCycles, p.name);
  return out;
}

ModelledLatency model_rdma_latency(const LoadGenOptions& o, const timing::TimingParams& p) {
  const timing::TimingModel m(p);
  const double rtt = m.path_round_trip_ns({rdma_request_len(RdmaOp::kRead, 1), rdma_reply_len(RdmaOp::kRead, 1)},
                                          {m.cycles_ns(kRdmaOpCycles)});
  const double floor_ns =
      o.rate > 0 ? 0 : o.outstanding * m.cycles_ns(p.app_fixed_cycles + 5 * p.app_cycles_per_word + kRdmaOpCycles);
  ModelledLatency out;
  out.min_ns = out.mean_ns = out.p50_ns = out.p90_ns = out.p99_ns = out.p999_ns = out.max_ns =
      std::max(rtt, floor_ns);
  out.how = absl::StrFormat("unloaded, a 1-word READ as every op, %.0f cycles of declared work, "
                            "parameter set %s", kRdmaOpCycles, p.name);
  return out;
}

ModelledLatency model_raft_latency(const LoadGenOptions& o, size_t servers, const timing::TimingParams& p) {
  const timing::TimingModel m(p);
  const double work = m.cycles_ns(kRaftOpCycles);
  const size_t request = raft_client_request_len(RaftOp::kPut);
  const size_t append = 8 * (kRaftAppendHeadWords + kRaftEntryWords);
  const size_t ack = 8 * 4;
  const size_t reply = raft_client_reply_len(false);
  const double rtt = servers <= 1 ? m.path_round_trip_ns({request, reply}, {work})
                                  : m.path_round_trip_ns({request, append, ack, reply}, {work, work, work});
  ModelledLatency out;
  out.min_ns = out.mean_ns = out.p50_ns = out.p90_ns = out.p99_ns = out.p999_ns = out.max_ns =
      o.rate > 0 ? rtt : std::max(rtt, o.outstanding * m.cycles_ns(kRaftOpCycles));
  out.how = absl::StrFormat(
      "unloaded PUT, %zu servers: client, leader, follower, leader, client; %.0f cycles of declared "
      "work per relay; no switch latency (the paper's 300 ns switch is not in the model), "
      "parameter set %s",
      servers, kRaftOpCycles, p.name);
  return out;
}

}  // namespace nanopu::apps
