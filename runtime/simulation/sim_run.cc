// nanopu/sim.h: one run of a topology on the modelled clock, from the
// public options to the Simulation and back.
#include <memory>

#include "absl/strings/str_cat.h"
#include "model/timing/timing_params.h"
#include "nanopu/buggify.h"
#include "nanopu/probe.h"
#include "nanopu/seeded_draw.h"
#include "nanopu/sim.h"
#include "nanopu/stats.h"
#include "runtime/platform/eal.h"
#include "runtime/simulation/sim_run.h"
#include "runtime/simulation/streams.h"

namespace nanopu::sim {
namespace {

uint64_t ms_to_ps(double ms) { return static_cast<uint64_t>(ms * 1e9); }

// The runtime's rare paths a campaign reports the coverage of (Report::probes).
constexpr const char* kRarePaths[] = {
    "rx_dup_packets",      "rx_chopped_packets",       "rx_nack_no_slot",        "rx_nack_context_full",
    "rx_drop_fifo_full",   "rx_reassembly_expired",    "rx_reassembly_superseded", "rx_senders_forgotten",
    "rx_beyond_id_memory", "rx_drop_stale_incarnation", "rx_stale_control",      "rx_msgs_aborted",
    "rx_nacks",            "rx_resends",               "tx_msgs_failed",         "tx_msgs_held_for_ids",
    "tx_msgs_refused",     "peer_restarts",            "tx_retransmits",         "tx_timeouts",
    "tx_probes",           "tx_probes_withheld",       "tx_acks_held_expired",   "tx_drop_no_mbuf",
    "rx_rejected_slo",     "tx_msgs_rejected"};

void add_rare_paths(const SimReport& r, Report* out) {
  NicCounters sum;
  for (const SimHostEnd& h : r.hosts) sum += h.nic;
  sum.for_each([&](std::string_view name, uint64_t v) {
    for (const char* rare : kRarePaths)
      if (name == rare) out->probes.emplace_back(absl::StrCat("nic.", absl::string_view(name.data(), name.size())), v);
  });
}

}  // namespace

absl::Status init_sim_eal(size_t hosts) {
  // One EAL for every host: one lcore, no hugepages, room for their pools.
  EalParams eal;
  eal.huge = HugePages::kOff;
  eal.pin = false;  // the loop's threads, and an MPI rank beside another, on any CPU
  eal.telemetry = false;
  eal.eal_log_level = 3;
  eal.no_huge_memory_mb = 256 + 48 * hosts;
  return eal_init(eal);
}

absl::StatusOr<SimParams> sim_params(const Options& o, const Programs& programs) {
  SimParams p;
  p.seed = o.seed;
  p.wire_gbps = o.wire_gbps;
  p.wire_latency_ns = o.wire_latency_ns;
  p.switch_latency_ns = o.switch_latency_ns;
  p.idle_step_ns = o.idle_step_ns;
  p.modelled_limit_s = o.modelled_limit_s;
  p.progress = o.progress;
  p.poll_every_host = o.poll_every_host;
  p.threads = o.threads;
  p.counted = o.charge != Charge::kNone;
  p.measured = o.charge == Charge::kMeasured;
  absl::StatusOr<model::TimingParams> timing = model::named_timing_params(o.timing_params);
  if (!timing.ok()) return absl::InvalidArgumentError(absl::StrCat("timing parameters: ", timing.status().message()));
  p.timing = *timing;
  for (const Cut& c : o.cuts) p.cuts.push_back({c.host, ms_to_ps(c.from_ms), ms_to_ps(c.from_ms + c.for_ms)});
  for (const Crash& c : o.crashes)
    p.crashes.push_back(
        {c.host, ms_to_ps(c.at_ms), c.down_ms > 0 ? ms_to_ps(c.at_ms + c.down_ms) : 0, c.after_send, c.power_loss});
  p.programs = &programs;
  return p;
}

Report public_report(const SimReport& r) {
  Report out;
  out.ended = r.ended;
  out.stalled = r.stalled;
  out.modelled_s = static_cast<double>(r.modelled_ps) / 1e12;
  out.wall_s = r.wall_s;
  out.frames = r.frames;
  out.instants = r.instants;
  out.windows = r.windows;
  out.threads = r.threads;
  out.ranks = r.ranks;
  out.crashes = r.crashes;
  out.restarts = r.restarts;
  out.cut_dropped = r.cut_dropped;
  out.trace_hash = r.trace_hash;
  out.exit_status = r.exit_status;
  out.has_switch = r.has_switch;
  out.switch_forwarded = r.switch_counters.forwarded;
  out.switch_trimmed = r.switch_counters.trimmed;
  out.switch_tail_dropped = r.switch_counters.tail_dropped;
  out.switch_control_dropped = r.switch_counters.control_dropped;
  out.switch_no_route = r.switch_counters.no_route;
  out.forwarded_by_switch = r.forwarded_by_switch;
  for (const SimHostEnd& h : r.hosts) {
    HostReport host{h.name, h.program, h.client, h.down, h.program_object, h.exit_status, nullptr, h.nic};
    for (const SimClientResult& c : r.clients)
      if (c.host == h.name) host.result = std::make_shared<const loadgen::Result>(c.result);
    out.hosts.push_back(std::move(host));
  }
  add_rare_paths(r, &out);
  return out;
}

absl::StatusOr<Report> run_topology(const Topology& t, const Programs& programs, const Options& o, FILE* out,
                                    const std::function<void(const Report&)>& inspect, model::SimPeers* peers) {
  absl::StatusOr<SimParams> p = sim_params(o, programs);
  if (!p.ok()) return p.status();
  p->peers = peers;
  if (absl::Status s = init_sim_eal(t.hosts.size()); !s.ok()) return s;
  std::unique_ptr<History> history = std::make_unique<History>();
  if (!o.history_path.empty()) {
    absl::StatusOr<std::unique_ptr<History>> h = History::open(o.history_path);
    if (!h.ok()) return h.status();
    history = std::move(*h);
  }
  p->history = history.get();
  Report report;
  {
    Simulation s(t, *p);
    if (absl::Status st = s.build(); !st.ok()) return st;
    (void)take_probe_hits();  // what fired outside a run is not this run's
    record_probes(true);
    set_buggify(o.buggify, stream_seed(o.seed, kBuggifyStream));
    const SimReport r = s.run(out);
    set_buggify(false);
    record_probes(false);
    std::vector<std::pair<std::string, uint64_t>> mine = take_probe_hits();
    report = public_report(r);
    report.probes.insert(report.probes.begin(), mine.begin(), mine.end());
    report.history = history->events();
    if (inspect) inspect(report);
    for (HostReport& h : report.hosts) h.program_object = nullptr;  // gone with the Simulation
  }
  if (absl::Status s = history->flush(); !s.ok()) return s;
  if (const std::string e = history->error(); !e.empty())
    return absl::InvalidArgumentError("the run's history: " + e);
  return report;
}

absl::StatusOr<Report> run(const std::string& topology_path, const Programs& programs, const Options& options,
                           FILE* out, const std::function<void(const Report&)>& inspect) {
  absl::StatusOr<Topology> t = read_topology(topology_path);
  if (!t.ok()) return t.status();
  return run_topology(*t, programs, options, out, inspect);
}

}  // namespace nanopu::sim
