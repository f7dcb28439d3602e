// The host's own noise beside a measured tail (docs/running.md, "Reading a
// tail"). On a shared machine a latency tail is mostly the host's: a poll
// loop descheduled for a millisecond holds every request in flight for that
// millisecond. nanopu watches the loops it runs (each NIC core's poll, each
// dedicated worker's idle turns) for gaps, as a spinning probe would, and
// reads the kernel's steal time, so a report can say which part of its tail
// the host explains. Measured, never modelled: on a modelled clock there is
// nothing to watch.
#pragma once

#include <cstdint>
#include <string>

namespace nanopu {

// Gaps of at least this long between two turns of a watched loop count as
// stalls: a NIC-core poll of a full burst takes a few microseconds, so
// longer is time the loop did not have the CPU.
inline constexpr uint64_t kStallMinNs = 20'000;

struct HostNoise {
  bool measured = false;   // false: a modelled clock, or no loop was watched
  uint32_t loops = 0;      // loops watched (NIC cores, dedicated workers)
  double watched_s = 0;    // the time they were watched, summed over loops
  double stalled_s = 0;    // in gaps >= kStallMinNs, summed over loops
  uint64_t stalls = 0;     // gaps >= kStallMinNs
  uint64_t over_50us = 0;
  uint64_t over_1ms = 0;
  uint64_t longest_ns = 0;
  double steal_share = -1;  // /proc/stat's steal over the run, all CPUs; < 0: not reported
  [[nodiscard]] double stalled_share() const { return watched_s > 0 ? stalled_s / watched_s : 0; }
  // Adds another loop's or host's.
  void add(const HostNoise& o);
};

// The measured load beside it: what a stall does to requests depends on how
// many are in flight when it strikes and, in an open loop, how many are
// due during it.
struct LoadShape {
  uint64_t requests = 0;     // answered
  double elapsed_s = 0;      // first send to last reply
  double mean_latency_ns = 0;
  bool open_loop = false;    // requests keep coming due during a stall
  uint64_t p99_ns = 0, p999_ns = 0, max_ns = 0;
};

// The share of the requests that can have waited through a stall (at most
// 1): each stall holds those in flight (Little's law: rate x mean latency,
// at least one) and, in an open loop, those due during it.
[[nodiscard]] double stalled_request_share(const HostNoise& n, const LoadShape& load);

// Two lines for under a latency table: the profile, then which part of the
// load's tail the host explains (the profile alone with no requests).
[[nodiscard]] std::string describe_host_noise(const HostNoise& n, const LoadShape& load);
// As a JSON object (its members in docs/running.md); request_share is
// stalled_request_share(n, load).
[[nodiscard]] std::string host_noise_json(const HostNoise& n, const LoadShape& load);

}  // namespace nanopu
