// homa: the Homa paper's headline experiment (SIGCOMM'18, §5.2, Figs. 12–13)
// in virtual time — slowdown against message size at 50 % and 80 % load on
// the W3 workload, Homa beside NDP, each host running the NIC core's own
// transport (model/queueing/virtual_workload.h). Every number is *modelled*.
// Writes homa.csv / homa.png and homa.json.
#include <rte_mbuf.h>

#include <algorithm>
#include <cstdio>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "bench/figures/figures.h"
#include "model/queueing/virtual_workload.h"

namespace nanopu::figures {
namespace {

// Size bins (bytes, inclusive upper bounds) for the slowdown-vs-size curve.
constexpr uint32_t kBins[] = {64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65535};

struct Run {
  const char* transport;
  double load;
  model::WorkloadResult r;
  // p50 / p99 slowdown per bin, and of the shortest 10 % of messages.
  std::vector<double> p50, p99;
  double short_p99 = 0;
};

void summarize(Run& run) {
  std::vector<std::vector<double>> by_bin(std::size(kBins));
  std::vector<model::WorkloadResult::Message> m = run.r.messages;
  for (const auto& x : m) {
    size_t b = 0;
    while (x.bytes > kBins[b]) ++b;
    by_bin[b].push_back(x.slowdown);
  }
  for (const auto& v : by_bin) {
    run.p50.push_back(sample_quantile(v, 0.5));
    run.p99.push_back(sample_quantile(v, 0.99));
  }
  std::stable_sort(m.begin(), m.end(), [](const auto& a, const auto& b) { return a.bytes < b.bytes; });
  std::vector<double> shortest;
  for (size_t i = 0; i < m.size() / 10; ++i) shortest.push_back(m[i].slowdown);
  run.short_p99 = sample_quantile(shortest, 0.99);
}

}  // namespace

bool homa(const FigureOptions& o) {
  rte_mempool* pool = model_mempool();
  if (pool == nullptr) {
    std::fprintf(stderr, "nanopu-figures: homa needs DPDK's EAL and a mempool, which did not start\n");
    return false;
  }
  const auto messages = static_cast<uint32_t>(std::clamp<uint64_t>(o.requests / 4, 2000, 50000));
  std::printf("Homa vs NDP: W3 message sizes (clipped at 65535 B), 16 hosts, one switch, %.0f Gb/s, "
              "%.2f ns links, %u messages per run (modelled; the NIC core's own transports)\n",
              o.params.link_gbps, o.params.link_latency_ns, messages);
  std::vector<Run> runs;
  for (double load : {0.5, 0.8}) {
    for (bool homa : {true, false}) {
      model::WorkloadConfig c;
      c.load = load;
      c.homa = homa;
      c.messages = messages;
      c.seed = o.seed;
      c.link_gbps = o.params.link_gbps;
      c.link_latency_ns = o.params.link_latency_ns;
      Run run{homa ? "homa" : "ndp", load, model::run_workload(c, pool), {}, {}, 0};
      summarize(run);
      std::printf("  %-4s load %2.0f%%: delivered %u/%u  p99 slowdown, shortest 10%%: %6.2f  "
                  "trimmed %llu retransmits %llu timeouts %llu grants %llu resends %llu\n",
                  run.transport, load * 100, run.r.delivered, run.r.offered, run.short_p99,
                  static_cast<unsigned long long>(run.r.trimmed),
                  static_cast<unsigned long long>(run.r.retransmits),
                  static_cast<unsigned long long>(run.r.timeouts),
                  static_cast<unsigned long long>(run.r.grants),
                  static_cast<unsigned long long>(run.r.resends));
      runs.push_back(std::move(run));
    }
  }
  Table t{{"size bytes <="}, {}};
  for (const Run& r : runs)
    for (const char* q : {"p50", "p99"})
      t.columns.push_back(absl::StrFormat("%s %.0f%% %s", r.transport, r.load * 100, q));
  for (size_t b = 0; b < std::size(kBins); ++b) {
    std::vector<std::string> row = {absl::StrCat(kBins[b])};
    for (const Run& r : runs) {
      row.push_back(absl::StrFormat("%.3f", r.p50[b]));
      row.push_back(absl::StrFormat("%.3f", r.p99[b]));
    }
    t.rows.push_back(row);
  }
  const bool ok = write_figure(o, "homa", t, "line", "Slowdown vs message size, W3 (modelled)", "slowdown");
  // JSON beside the CSV: every run's bins and headline numbers.
  std::ofstream json(o.out_dir + "/homa.json");
  json << "{\"workload\":\"W3 clipped at 65535 B\",\"hosts\":16,\"messages_per_run\":" << messages
       << ",\"modelled\":true,\"runs\":[";
  for (size_t i = 0; i < runs.size(); ++i) {
    const Run& r = runs[i];
    json << (i ? "," : "") << "{\"transport\":\"" << r.transport << "\",\"load\":" << r.load
         << ",\"delivered\":" << r.r.delivered << ",\"offered\":" << r.r.offered
         << ",\"shortest10_p99_slowdown\":" << r.short_p99 << ",\"bins\":[";
    for (size_t b = 0; b < std::size(kBins); ++b)
      json << (b ? "," : "") << "{\"le_bytes\":" << kBins[b] << ",\"p50\":" << r.p50[b] << ",\"p99\":" << r.p99[b] << "}";
    json << "]}";
  }
  json << "]}\n";
  std::printf("  wrote %s/homa.json\n", o.out_dir.c_str());
  const Run& homa80 = runs[2];
  const Run& ndp80 = runs[3];
  Headline h{"Homa p99 slowdown, shortest 10% of messages, 80% load", homa80.short_p99, 2.5};
  h.upper_bound = true;
  const std::vector<Shape> shapes = {
      {"Homa's short-message p99 slowdown below NDP's at 80% load", homa80.short_p99 < ndp80.short_p99},
      {"every message delivered in every run",
       std::all_of(runs.begin(), runs.end(), [](const Run& r) { return r.r.delivered == r.r.offered; })},
  };
  return report(o, "homa", {h}, shapes) && ok && json.good();
}

}  // namespace nanopu::figures
