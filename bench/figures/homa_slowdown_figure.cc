// homa-slowdown: the Homa paper's slowdown figure (SIGCOMM'18, §5.2,
// Figure 12: 99th-percentile slowdown against message size, W1..W5 at 80 %
// load on a leaf-spine fabric) with nanopu's real Homa and NDP code: every
// host of the fabric runs nanopu-sim's `workload` program
// (tools/simulator/workload_program.h) on one modelled clock. A message's
// slowdown is its round trip (the message, then an 8-byte reply) over the
// same round trip of a message of its size alone on the idle fabric, which
// the figure measures first, with the same code, per transport.
//
// The default is a reduced run (2 racks of 4 hosts, 2 spines, 150 messages
// a host) that the test command runs; tools/fabric/homa_slowdown.sh runs
// the paper's 144 hosts. The paper's per-size values are not in nanopu's
// seeds, so its claims are checked as shapes (docs/figures.md).
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "bench/figures/figures.h"
#include "bench/figures/sim_run.h"
#include "nanopu/message_sizes.h"
#include "nanopu/rpc.h"

ABSL_FLAG(uint32_t, fabric_racks, 2, "homa-slowdown: racks (top-of-rack switches), 2..9 (the paper: 9).");
ABSL_FLAG(uint32_t, fabric_rack_hosts, 4, "homa-slowdown: hosts per rack, 1..16 (the paper: 16).");
ABSL_FLAG(uint32_t, fabric_spines, 2, "homa-slowdown: spine switches, 1..8 (the paper: 4).");
ABSL_FLAG(uint32_t, workload_messages, 150, "homa-slowdown: messages each host sends per run (>= 10).");
ABSL_FLAG(double, workload_load, 0.8, "homa-slowdown: offered load, a fraction of each host's 10 Gb/s link.");
ABSL_FLAG(std::string, workloads, "W1,W2,W3,W4,W5", "homa-slowdown: the workloads to run, comma-separated.");

namespace nanopu::figures {
namespace {

constexpr double kHostGbps = 10, kCoreGbps = 40;  // the paper's fabric
// Size bins (bytes of a message, inclusive upper bounds).
constexpr uint32_t kSlowdownBins[] = {16, 64, 256, 1024, 4096, 16384, 65527};
// Each switch port's buffer (bytes): a datacenter switch's shared buffer
// (12–16 MB over 32–64 ports), not the nanoPU paper's 81 KB at 200 Gb/s,
// which Homa's overcommitment (8 senders x 10 KB unscheduled at a receiver)
// overflows at every incast.
constexpr uint32_t kQueueBytes = 400 * 1024;
// Each host's packet buffers (a simulated host has 4095 unless told), and
// the messages it keeps in flight: later arrivals wait at the sender, their
// time counted. With 4095 buffers, 200 of W5's messages (45 packets each)
// held them all and the host stopped (docs/figures.md, "Homa's Figure 12"); with 32 in flight,
// Homa's long messages, starved by SRPT at 143 receivers, kept the short
// ones waiting at the sender. 200 of 45 packets leave 7,000 buffers for
// what a host receives.
constexpr uint32_t kMbufs = 16383;
constexpr uint32_t kMaxInFlight = 200;
// The idle round trip is measured at these sizes and interpolated between.
constexpr uint32_t kProbeBytes[] = {1, 16, 64, 256, 1024, 1400, 2048, 4096, 8192, 16384, 32768, 65527};

struct Fabric {
  uint32_t racks = 2, rack_hosts = 4, spines = 2;
};

std::string ip_of(uint32_t rack, uint32_t host) { return absl::StrFormat("10.0.%u.%u", rack + 1, host + 1); }

// The leaf-spine fabric, host h of rack r running `workload` with
// `flags(r, h)` (empty: that host is left out).
template <typename F>
std::string fabric_text(const Fabric& f, bool homa, F flags) {
  std::string t;
  const std::string sw = absl::StrFormat(" --queue_bytes=%u%s", kQueueBytes, homa ? " --priorities --trimming=false" : "");
  for (uint32_t r = 0; r < f.racks; ++r)
    absl::StrAppendFormat(&t, "switch leaf%u --switch_gbps=%g --spray%s\n", r, kHostGbps, sw);
  for (uint32_t s = 0; s < f.spines; ++s) absl::StrAppendFormat(&t, "switch spine%u --switch_gbps=%g%s\n", s, kCoreGbps, sw);
  std::string links;
  for (uint32_t r = 0; r < f.racks; ++r) {
    for (uint32_t h = 0; h < f.rack_hosts; ++h) {
      const std::string fl = flags(r, h);
      if (fl.empty()) continue;
      absl::StrAppendFormat(&t, "host r%uh%u %s 02:00:00:00:%02x:%02x workload --transport=%s --host_gbps=%g --link_gbps=%g "
                            "--mbufs=%u %s\n",
                            r, h, ip_of(r, h), r + 1, h + 1, homa ? "homa" : "ndp", kHostGbps, kHostGbps, kMbufs, fl);
      absl::StrAppendFormat(&links, "link r%uh%u leaf%u\n", r, h, r);
    }
    for (uint32_t s = 0; s < f.spines; ++s) absl::StrAppendFormat(&links, "link leaf%u spine%u gbps=%g\n", r, s, kCoreGbps);
  }
  return t + links;
}

// The idle fabric's round trip of a message of each probe size, host 0 of
// rack 0 to host 0 of the last rack (through a spine), the least of 4.
absl::StatusOr<std::vector<double>> idle_round_trips(const FigureOptions& o, const Fabric& f, bool homa) {
  std::string sizes;
  for (uint32_t bytes : kProbeBytes) absl::StrAppend(&sizes, sizes.empty() ? "" : ",", bytes);
  const std::string text = fabric_text(f, homa, [&](uint32_t r, uint32_t h) -> std::string {
    if (h != 0 || (r != 0 && r != f.racks - 1)) return "";
    if (r == 0)  // one message at a time, each size 4 times
      return absl::StrFormat("--fixed_bytes=%s --count=%u --peers=%s", sizes, 4 * std::size(kProbeBytes),
                             ip_of(f.racks - 1, 0));
    return absl::StrFormat("--fixed_bytes=1 --count=1 --peers=%s", ip_of(0, 0));  // answers; one message of its own
  });
  const SimRun run = simulate(o, homa ? "idle-homa" : "idle-ndp", text, Net{}, Charge::kWiresOnly);
  if (!run.ok) return absl::InternalError(run.error);
  std::vector<double> ns(std::size(kProbeBytes), 1e18);
  for (const loadgen::ReplySample& s : run.clients.front().samples)
    for (size_t i = 0; i < std::size(kProbeBytes); ++i)
      if (s.request_bytes == kProbeBytes[i] + 8) ns[i] = std::min(ns[i], s.rtt_ns);
  return ns;
}

// The idle round trip at `bytes`, linear between the probes.
double idle_ns(const std::vector<double>& probe_ns, uint32_t bytes) {
  size_t i = 1;
  while (i + 1 < std::size(kProbeBytes) && kProbeBytes[i] < bytes) ++i;
  const double a = kProbeBytes[i - 1], b = kProbeBytes[i];
  const double x = std::clamp<double>(bytes, a, b);
  return probe_ns[i - 1] + (x - a) / (b - a) * (probe_ns[i] - probe_ns[i - 1]);
}

struct SlowdownCurve {
  SizeWorkload workload;
  bool homa = false;
  std::vector<double> p99;      // per bin; 0: no message of that size
  std::vector<size_t> counts;   // per bin
  double small_p99 = 0;         // over the shortest fifth of the messages
  uint64_t messages = 0;
  double wall_s = 0;
  uint64_t trace_hash = 0;
};

absl::StatusOr<SlowdownCurve> loaded_run(const FigureOptions& o, const Fabric& f, SizeWorkload w, bool homa,
                                 const std::vector<double>& probe_ns, uint32_t messages, double load) {
  std::string peers;
  for (uint32_t r = 0; r < f.racks; ++r) absl::StrAppend(&peers, r ? "," : "", ip_of(r, 0), "-", f.rack_hosts);
  const std::string text = fabric_text(f, homa, [&](uint32_t, uint32_t) {
    return absl::StrFormat("--workload=%s --load=%g --count=%u --max_in_flight=%u --peers=%s", size_workload_name(w),
                           load, messages, kMaxInFlight, peers);
  });
  const std::string name = std::string(size_workload_name(w)) + (homa ? "-homa" : "-ndp");
  const SimRun run = simulate(o, name, text, Net{}, Charge::kWiresOnly);
  if (!run.ok) return absl::InternalError(run.error);
  SlowdownCurve c{w, homa, {}, {}, 0, 0, run.wall_s, run.trace_hash};
  std::vector<std::vector<double>> by_bin(std::size(kSlowdownBins));
  std::vector<std::pair<uint32_t, double>> all;  // bytes, slowdown
  for (const loadgen::Result& r : run.clients) {
    for (const loadgen::ReplySample& s : r.samples) {
      const uint32_t bytes = s.request_bytes - 8;  // the call's word is not the message's
      const double slowdown = s.rtt_ns / idle_ns(probe_ns, bytes);
      size_t b = 0;
      while (bytes > kSlowdownBins[b]) ++b;
      by_bin[b].push_back(slowdown);
      all.emplace_back(bytes, slowdown);
      ++c.messages;
    }
  }
  for (const auto& v : by_bin) {
    c.p99.push_back(sample_quantile(v, 0.99));
    c.counts.push_back(v.size());
  }
  // The shortest fifth (by size, ties in run order): one seed gives both
  // transports the same messages.
  std::stable_sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<double> small;
  for (size_t i = 0; i < all.size() / 5; ++i) small.push_back(all[i].second);
  c.small_p99 = sample_quantile(small, 0.99);
  return c;
}

absl::StatusOr<std::vector<SizeWorkload>> workloads_flag() {
  std::vector<SizeWorkload> ws;
  for (absl::string_view s : absl::StrSplit(absl::GetFlag(FLAGS_workloads), ',', absl::SkipWhitespace())) {
    absl::StatusOr<SizeWorkload> w = parse_size_workload(std::string_view(s.data(), s.size()));
    if (!w.ok()) return absl::InvalidArgumentError("--workloads: " + std::string(w.status().message()));
    ws.push_back(*w);
  }
  if (ws.empty()) return absl::InvalidArgumentError("--workloads names none of W1..W5");
  return ws;
}

void write_json(const FigureOptions& o, const Fabric& f, uint32_t messages, double load, const std::vector<SlowdownCurve>& cs) {
  std::ofstream json(o.out_dir + "/homa-slowdown.json");
  json << "{\"modelled\":true,\"racks\":" << f.racks << ",\"rack_hosts\":" << f.rack_hosts << ",\"spines\":" << f.spines
       << ",\"messages_per_host\":" << messages << ",\"load\":" << load << ",\"curves\":[";
  for (size_t i = 0; i < cs.size(); ++i) {
    const SlowdownCurve& c = cs[i];
    json << (i ? "," : "") << "{\"workload\":\"" << size_workload_name(c.workload) << "\",\"transport\":\""
         << (c.homa ? "homa" : "ndp") << "\",\"messages\":" << c.messages << ",\"small_p99\":" << c.small_p99
         << ",\"bins\":[";
    for (size_t b = 0; b < std::size(kSlowdownBins); ++b)
      json << (b ? "," : "") << "{\"le_bytes\":" << kSlowdownBins[b] << ",\"count\":" << c.counts[b] << ",\"p99\":" << c.p99[b]
           << "}";
    json << "]}";
  }
  json << "]}\n";
}

}  // namespace

bool homa_slowdown(const FigureOptions& o) {
  const Fabric f{absl::GetFlag(FLAGS_fabric_racks), absl::GetFlag(FLAGS_fabric_rack_hosts),
                 absl::GetFlag(FLAGS_fabric_spines)};
  const uint32_t messages = absl::GetFlag(FLAGS_workload_messages);
  const double load = absl::GetFlag(FLAGS_workload_load);
  absl::StatusOr<std::vector<SizeWorkload>> ws = workloads_flag();
  if (!ws.ok() || f.racks < 2 || f.racks > 9 || f.rack_hosts < 1 || f.rack_hosts > 16 || f.spines < 1 ||
      f.spines > 8 || messages < 10 || !(load > 0 && load <= 1)) {
    std::fprintf(stderr, "nanopu-figures homa-slowdown: %s\n",
                 !ws.ok() ? std::string(ws.status().message()).c_str()
                          : "want --fabric_racks 2..9, --fabric_rack_hosts 1..16, --fabric_spines 1..8, "
                            "--workload_messages >= 10, --workload_load in (0, 1]");
    return false;
  }
  std::printf("Homa vs NDP, slowdown by message size: %u racks x %u hosts, %u spines, %g/%g Gb/s, %.0f%% load, "
              "%u messages a host per run (modelled; every host runs nanopu's own code)%s\n",
              f.racks, f.rack_hosts, f.spines, kHostGbps, kCoreGbps, load * 100, messages,
              f.racks * f.rack_hosts < 144 ? "; a reduced run (the paper: 9 x 16 hosts, 4 spines)" : "");
  if (!model_eal(f.racks * f.rack_hosts, 128)) {
    std::fprintf(stderr, "nanopu-figures homa-slowdown: DPDK's EAL did not start\n");
    return false;
  }
  std::map<bool, std::vector<double>> probes;
  for (bool homa : {true, false}) {
    absl::StatusOr<std::vector<double>> p = idle_round_trips(o, f, homa);
    if (!p.ok()) {
      std::fprintf(stderr, "nanopu-figures homa-slowdown: idle fabric: %s\n", std::string(p.status().message()).c_str());
      return false;
    }
    probes[homa] = *p;
    std::printf("  idle round trip, %s: %.2f us at 1 B, %.2f us at 1 KB, %.2f us at 64 KB\n", homa ? "homa" : "ndp ",
                (*p)[0] / 1e3, (*p)[4] / 1e3, p->back() / 1e3);
  }
  std::vector<SlowdownCurve> curves;
  for (SizeWorkload w : *ws) {
    const SizeStats st = size_stats(w, rpc::kMaxCallBytes);
    for (bool homa : {true, false}) {
      absl::StatusOr<SlowdownCurve> c = loaded_run(o, f, w, homa, probes[homa], messages, load);
      if (!c.ok()) {
        std::fprintf(stderr, "nanopu-figures homa-slowdown: %s\n", std::string(c.status().message()).c_str());
        return false;
      }
      std::printf("  %s %-4s: %6llu messages, p99 slowdown of the shortest fifth %6.2f  (%.1f s wall; %.1f%% of %s's "
                  "messages clipped at 64 KB)\n",
                  std::string(size_workload_name(w)).c_str(), homa ? "homa" : "ndp",
                  static_cast<unsigned long long>(c->messages), c->small_p99, c->wall_s, 100 * st.clipped_fraction,
                  std::string(size_workload_name(w)).c_str());
      curves.push_back(*c);
    }
  }
  Table t{{"size bytes <="}, {}};
  for (const SlowdownCurve& c : curves) t.columns.push_back(std::string(size_workload_name(c.workload)) + (c.homa ? " homa p99" : " ndp p99"));
  for (size_t b = 0; b < std::size(kSlowdownBins); ++b) {
    std::vector<std::string> row = {absl::StrCat(kSlowdownBins[b])};
    for (const SlowdownCurve& c : curves) row.push_back(c.counts[b] ? absl::StrFormat("%.2f", c.p99[b]) : "");
    t.rows.push_back(row);
  }
  const bool ok = write_figure(o, "homa-slowdown", t, "line", "p99 slowdown vs message size (modelled)", "slowdown");
  write_json(o, f, messages, load, curves);
  std::printf("  wrote %s/homa-slowdown.json\n", o.out_dir.c_str());
  // The paper (Montazeri et al., abstract and §5.2): Homa's tail for short
  // messages is lower than NDP's in almost every workload. nanopu's Homa on
  // this fabric misses that: printed, not asserted (docs/figures.md says
  // why, as far as it is known).
  int homa_wins = 0;
  bool at_least_idle = true;
  for (size_t i = 0; i + 1 < curves.size(); i += 2) {
    homa_wins += curves[i].small_p99 <= curves[i + 1].small_p99;
    for (const SlowdownCurve& c : {curves[i], curves[i + 1]})
      for (size_t b = 0; b < std::size(kSlowdownBins); ++b) at_least_idle &= c.counts[b] == 0 || c.p99[b] >= 0.95;
  }
  std::printf("  the paper: Homa's p99 slowdown of short messages below NDP's in almost every workload; here, "
              "of the shortest fifth, in %d of %zu%s\n",
              homa_wins, curves.size() / 2, 2 * homa_wins > static_cast<int>(curves.size() / 2) ? "" : ": MISSES (known: docs/figures.md)");
  // One seed, one run: the first workload's Homa run again, to its trace hash.
  absl::StatusOr<SlowdownCurve> again = loaded_run(o, f, ws->front(), true, probes[true], messages, load);
  const std::vector<Shape> shapes = {
      {"no size's p99 slowdown below the idle fabric's (>= 0.95)", at_least_idle},
      {"the same seed replays a run to the same trace hash", again.ok() && again->trace_hash == curves[0].trace_hash},
  };
  return report(o, "homa-slowdown", {}, shapes) && ok;
}

}  // namespace nanopu::figures
