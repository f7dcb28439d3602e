// pspin: PsPIN's handler figures ("PsPIN: A high-performance low-power
// architecture for flexible in-network compute", §IV) from the six use
// cases' own handlers (examples/spin-handlers): the 64 B and 1024 B packet
// latencies (§IV-B1), Fig. 10 (modelled throughput per handler for 64, 512
// and 1024 B packets, from the cycles each handler declares at that size),
// and Fig. 11's x86 column measured live: the same handlers run on one core
// of this machine over packets already in memory (the paper's method for its
// Skylake and A53 columns), beside the modelled HPU's per-core figure.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "bench/figures/figures.h"
#include "examples/spin-handlers/use_cases.h"
#include "nanopu/spin_local.h"
#include "nanopu/spin_model.h"

namespace nanopu::figures {
namespace {

using spin_demo::UseCase;

struct Pass {
  bool right = true;     // every output equal to the host reference
  double cycles = 0;     // declared, per packet (per message for header-only handlers)
  double seconds = 0;    // on this core
  uint64_t bytes = 0;
};

// One pass of u's workload through a fresh context, packets of packet_bytes.
Pass run_pass(UseCase u, uint64_t seed, uint32_t packet_bytes) {
  Pass p;
  auto ctx = spin_demo::make_context(u, spin_demo::context_of(u), seed);
  const bool per_packet = static_cast<bool>(ctx.payload);
  auto local = spin::LocalContext::create(std::move(ctx));
  if (!local.ok()) return {.right = false};
  const spin_demo::Workload w = spin_demo::make_workload(u, seed);
  std::vector<spin::LocalOutcome> outs;
  outs.reserve(w.messages.size());
  const auto t0 = std::chrono::steady_clock::now();
  for (size_t i = 0; i < w.messages.size(); ++i) {
    outs.push_back((*local)->run(w.messages[i], {.src_ip = 0x0a000002, .src_context = 2}, packet_bytes));
    p.bytes += w.messages[i].size();
  }
  p.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  // Checked after the clock stopped.
  std::vector<std::pair<uint64_t, uint64_t>> want, got;
  for (const spin_demo::Bytes& h : w.host) want.emplace_back(h.size(), spin_demo::fnv1a(h));
  for (size_t i = 0; i < outs.size(); ++i) {
    const spin::LocalOutcome& out = outs[i];
    if (out.fault != spin::Fault::kNone) p.right = false;
    if (!out.host.empty()) got.emplace_back(out.host.size(), spin_demo::fnv1a(out.host));
    // kvstore: a hit is answered by the NIC with the reference's value.
    if (u == UseCase::kKvstore && !out.sends.empty())
      p.right &= spin::load_be<uint64_t>(out.sends[0].bytes.data() + 16) == w.replies[i];
  }
  std::sort(want.begin(), want.end());
  std::sort(got.begin(), got.end());
  if (u != UseCase::kKvstore) p.right &= want == got;
  const spin::ContextReport& r = (*local)->report();
  p.cycles = static_cast<double>(r.declared_cycles) / static_cast<double>(per_packet ? r.packets : r.messages);
  return p;
}

// A Fig. 10 bar: the cycles the handlers declare for packets of that size,
// through the model. A header-only handler (filtering, kvstore) runs once
// per message, which is one packet in the paper's runs: its cycles per
// message are its cost per packet of any size. (Its output for packets cut
// smaller than its messages is not a use case's, and not checked.)
double fig10_gbps(UseCase u, uint64_t seed, uint32_t packet_bytes) {
  return spin::modelled_throughput_gbps(packet_bytes, run_pass(u, seed, packet_bytes).cycles);
}

}  // namespace

bool pspin(const FigureOptions& o) {
  std::vector<Headline> h;
  std::vector<Shape> shapes;
  h.push_back({"64 B packet, empty handler: latency (ns)", spin::modelled_packet_latency_ns(64, 1), 26});
  h.push_back({"1024 B packet, empty handler: latency (ns)", spin::modelled_packet_latency_ns(1024, 1), 40});

  Table t{{"handler", "64 B Gbit/s (modelled)", "512 B", "1024 B", "x86 core Gbit/s (measured live)",
           "HPU Gbit/s (modelled)"},
          {}};
  std::printf("PsPIN Fig. 10 (modelled, 32 HPUs at 1 GHz, 400 Gbit/s line) and Fig. 11 per core:\n");
  std::printf("  %-12s %9s %9s %9s   %14s %12s %10s\n", "handler", "64 B", "512 B", "1024 B", "x86 core", "HPU",
              "x86/HPU");
  bool right = true;
  for (UseCase u : spin_demo::kUseCases) {
    const char* name = spin_demo::name_of(u);
    const double g64 = fig10_gbps(u, o.seed, 64), g512 = fig10_gbps(u, o.seed, 512),
                 g1024 = fig10_gbps(u, o.seed, 1024);
    // Fig. 11: 1 KiB packets on one core of this machine; the best of
    // three passes (the first also warms the caches).
    double best = 0, cycles = 0;
    for (int i = 0; i < 3; ++i) {
      const Pass p = run_pass(u, o.seed, 1024);
      right &= p.right;
      if (!p.right) std::printf("  %s: host results differ from the reference\n", name);
      best = std::max(best, static_cast<double>(p.bytes) * 8 / p.seconds / 1e9);
      cycles = p.cycles;
    }
    const uint32_t hpu_bytes = u == UseCase::kFiltering ? 512 : u == UseCase::kKvstore ? 24 : 1024;
    const double hpu = spin::modelled_throughput_gbps(hpu_bytes, cycles, {.clusters = 1, .hpus_per_cluster = 1});
    std::printf("  %-12s %9.1f %9.1f %9.1f   %14.2f %12.2f %9.2fx\n", name, g64, g512, g1024, best, hpu, best / hpu);
    t.rows.push_back({name, absl::StrCat(g64), absl::StrCat(g512), absl::StrCat(g1024), absl::StrCat(best),
                      absl::StrCat(hpu)});
    const bool streaming = u == UseCase::kFiltering || u == UseCase::kKvstore || u == UseCase::kStridedDdt;
    if (streaming)
      h.push_back({absl::StrCat(name, ": Gbit/s from 512 B packets"), g512, 400});
    else
      shapes.push_back({absl::StrCat(name, ": more than 200 Gbit/s from 512 B packets (paper: > 200)"),
                        g512 > 200 && g1024 > 200});
    shapes.push_back({absl::StrCat(name, ": handlers measured live on this core (x86 column > 0)"), best > 0});
  }
  shapes.push_back({"every use case's host results equal its host reference (sPIN handlers, in memory)", right});
  std::printf("  (paper, Fig. 11: the Skylake core beats an HPU by 1.8x on aggregate, ~40x on filtering, ~36x on\n"
              "   strided_ddt; an HPU beats the best core by 1.3x on histogram, 1.9x on kvstore, 5.3x on reduce.\n"
              "   nanopu's x86 column is its handlers as an author writes them: checked memory accesses, a\n"
              "   timed call per handler, no SIMD. docs/figures.md, \"PsPIN's handlers\", compares the two.)\n");
  const bool ok = write_figure(o, "pspin", t, "bar", "PsPIN handler throughput (Fig. 10 modelled, Fig. 11 x86 live)",
                               "Gbit/s");
  return report(o, "pspin", h, shapes) && ok;
}

}  // namespace nanopu::figures
