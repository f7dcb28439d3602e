// nanopu/host_noise.h: adding profiles, and telling them.
#include "nanopu/host_noise.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_format.h"

namespace nanopu {

void HostNoise::add(const HostNoise& o) {
  if (!o.measured) return;
  measured = true;
  loops += o.loops;
  watched_s += o.watched_s;
  stalled_s += o.stalled_s;
  stalls += o.stalls;
  over_50us += o.over_50us;
  over_1ms += o.over_1ms;
  longest_ns = std::max(longest_ns, o.longest_ns);
  steal_share = std::max(steal_share, o.steal_share);
}

namespace {

std::string ms_or_us(uint64_t ns) {
  return ns >= 1'000'000 ? absl::StrFormat("%.2f ms", static_cast<double>(ns) / 1e6)
                         : absl::StrFormat("%.1f us", static_cast<double>(ns) / 1e3);
}

// The tail the host explains: requests from the (1 - share) quantile up
// can have waited through a stall; a tail value between the shortest stall
// counted and the longest one seen can be one stall alone.
std::string verdict(const HostNoise& n, const LoadShape& load) {
  const double share = stalled_request_share(n, load);
  if (n.stalls == 0)
    return absl::StrFormat("the host was quiet (no gap >= %d us): the tail is nanopu's and the network's",
                           static_cast<int>(kStallMinNs / 1000));
  if (share >= 0.5)
    return absl::StrFormat("most requests (up to %.1f %%) met a stall: these latencies are the host's as much as "
                           "nanopu's; measure on a quiet machine",
                           100.0 * share);
  const double q = 100.0 * (1.0 - share);
  const std::string from = q >= 99.95 ? "only above p99.9"
                           : q >= 99.9 ? absl::StrFormat("p%.2f and above", std::floor(q * 100) / 100)
                                       : absl::StrFormat("p%.1f and above", std::floor(q * 10) / 10);
  std::string out = absl::StrFormat("%s can be the host's (up to %.3f %% of requests met a stall)", from,
                                    100.0 * share);
  const struct {
    const char* name;
    uint64_t ns;
  } tail[] = {{"p99", load.p99_ns}, {"p99.9", load.p999_ns}, {"max", load.max_ns}};
  std::string within;
  for (const auto& t : tail)
    if (t.ns >= kStallMinNs && t.ns <= n.longest_ns + kStallMinNs)
      within += absl::StrFormat("%s%s %s", within.empty() ? "" : ", ", t.name, ms_or_us(t.ns));
  if (!within.empty()) out += absl::StrFormat("; %s: one stall alone can take that long", within);
  return out;
}

}  // namespace

double stalled_request_share(const HostNoise& n, const LoadShape& load) {
  if (!n.measured || n.stalls == 0 || load.requests == 0 || load.elapsed_s <= 0) return 0;
  const double rate_per_s = static_cast<double>(load.requests) / load.elapsed_s;
  const double in_flight = std::max(1.0, rate_per_s * load.mean_latency_ns * 1e-9);
  double met = static_cast<double>(n.stalls) * in_flight;
  if (load.open_loop) met += n.stalled_s * rate_per_s;
  return std::min(1.0, met / static_cast<double>(load.requests));
}

std::string describe_host_noise(const HostNoise& n, const LoadShape& load) {
  if (!n.measured) return "";
  std::string steal =
      n.steal_share < 0 ? "" : absl::StrFormat("; steal %.2f %% (all CPUs, /proc/stat)", 100.0 * n.steal_share);
  return absl::StrFormat(
             "  host noise (measured: %u poll loop%s watched %.2f s): stalled %.3f %% of the time, %llu stalls >= "
             "%d us, %llu > 50 us, %llu > 1 ms, the longest %s%s\n",
             n.loops, n.loops == 1 ? "" : "s", n.watched_s, 100.0 * n.stalled_share(),
             static_cast<unsigned long long>(n.stalls), static_cast<int>(kStallMinNs / 1000),
             static_cast<unsigned long long>(n.over_50us), static_cast<unsigned long long>(n.over_1ms),
             ms_or_us(n.longest_ns), steal) +
         (load.requests == 0 ? "" : "    -> " + verdict(n, load) + "\n");
}

std::string host_noise_json(const HostNoise& n, const LoadShape& load) {
  return absl::StrFormat(
      "{\"kind\":\"measured\",\"measured\":%s,\"loops\":%u,\"watched_s\":%.6f,\"stalled_s\":%.6f,"
      "\"stalled_share\":%.6f,\"request_share\":%.6f,\"stall_min_ns\":%llu,\"stalls\":%llu,\"over_50us\":%llu,"
      "\"over_1ms\":%llu,\"longest_ns\":%llu,\"steal_share\":%s}",
      n.measured ? "true" : "false", n.loops, n.watched_s, n.stalled_s, n.stalled_share(), stalled_request_share(n, load),
      static_cast<unsigned long long>(kStallMinNs), static_cast<unsigned long long>(n.stalls),
      static_cast<unsigned long long>(n.over_50us), static_cast<unsigned long long>(n.over_1ms),
      static_cast<unsigned long long>(n.longest_ns),
      n.steal_share < 0 ? std::string("null") : absl::StrFormat("%.6f", n.steal_share));
}

}  // namespace nanopu
