// Virtual-time mode: a discrete-event model of one nanoPU host under an
// open-loop Poisson load, driven by the same policy classes as the live
// runtime — CoreSelector (JBSQ/RSS/static, nic/core_select) and HtsPolicy
// (scheduler/hts_policy) — with modelled time instead of this machine's, so
// experiments are not bounded by its two CPUs (4 or 64 cores, 500 ns service
// times). Deterministic for a seed. Times are integer picoseconds.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "nic/core_select/core_selector.h"
#include "scheduler/hts_policy.h"

namespace nanopu::model {

struct ServiceTime {
  enum class Kind : uint8_t { kFixed, kExponential, kBimodal };
  Kind kind = Kind::kFixed;
  double mean_ns = 500;
  // kBimodal: a fraction p_long of requests take long_ns, the rest short_ns.
  double p_long = 0;
  double short_ns = 0;
  double long_ns = 0;
  // Every n-th request of this class takes misbehave_ns instead (0: never).
  uint32_t misbehave_every = 0;
  double misbehave_ns = 0;
  // Added to a message delivered while its thread still has another: its
  // payload fetched into the core's cache while the one before runs
  // (NEBULA (ISCA'20) §V-E, NIC-to-core steering; negative: a saving).
  double queued_delta_ns = 0;
  // The thread busy after each message, outside its response: its own work
  // between messages (§VII-C: the RPC loop's scan of its queue for a
  // payload to prefetch). Its next message waits for it, queued or arriving
  // sooner; the thread's, not the core's: another thread of the core runs
  // meanwhile (NEBULA's figures run one thread a core).
  double after_ns = 0;
};

// One class of requests: a context served by one thread on each listed core.
struct RequestClass {
  std::string name;
  uint8_t priority = 0;
  double share = 1;                // fraction of all requests
  ServiceTime service;
  std::vector<uint32_t> cores;     // empty: every core
};

// One request of a trace replayed instead of the Poisson process (the load
// generator's modelled column, docs/design.md §10).
struct TracedRequest {
  // Open loop: arrival at the NIC. Closed loop: after the completion that
  // frees its slot (the first `trace_outstanding` ones: after time 0).
  uint64_t arrival_ps = 0;
  uint32_t cls = 0;
  uint64_t service_ps = 0;
};

struct VirtualHostConfig {
  uint32_t cores = 1;
  std::vector<RequestClass> classes;
  CoreSelectPolicy core_select = CoreSelectPolicy::kJbsq;
  uint32_t jbsq_n = 2;
  sched::SchedMode mode = sched::SchedMode::kHts;
  bool bounded = true;
  DemotionMode demotion = DemotionMode::kPermanent;
  double t0_ns = 1000;
  double tis_period_ns = 5000;
  double context_switch_ns = 50;   // 160 cycles at 3.2 GHz
  double nic_rx_ns = 0;            // arrival at the NIC to the thread's FIFO
  double fixed_response_ns = 0;    // added to every response (links, fast path)
  double load_rps = 1e6;           // offered load, all classes
  uint64_t requests = 100000;      // measured requests (after warm-up)
  uint64_t warmup_requests = 5000;
  uint64_t seed = 1;
  // Trace replay: when not empty, exactly these requests arrive (load_rps,
  // requests, warm-up and the service distributions are not used), each
  // measured; closed loop when trace_outstanding > 0. Open loop: listed in
  // arrival order (one listed after a later one arrives with it).
  std::vector<TracedRequest> trace;
  uint32_t trace_outstanding = 0;
};

struct ClassResult {
  std::vector<uint64_t> response_ps;  // per measured request: arrival at the NIC to reply out
  // Quantile q (0..1) of the responses, in ns; 0 when empty. Sorts once.
  [[nodiscard]] double quantile_ns(double q);
  [[nodiscard]] double mean_ns() const;

 private:
  bool sorted_ = false;
};

struct VirtualHostResult {
  std::vector<ClassResult> classes;
  uint64_t events = 0;
  uint64_t context_switches = 0;
  uint64_t demotions = 0;
  double simulated_s = 0;
  // Trace replay: per traced request, arrival at the NIC to reply out
  // (fixed_response_ns included), in trace order.
  std::vector<uint64_t> trace_response_ps;
};

// Runs the model to completion (all measured requests answered).
[[nodiscard]] VirtualHostResult run_virtual_host(const VirtualHostConfig& c);

}  // namespace nanopu::model
