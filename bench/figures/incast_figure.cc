// incast: the 80-to-1 NDP experiment (nanoPU (OSDI'21) §5.2.3, nanoPU tail-latency version §4) in virtual time,
// the real NDP transport on every host (model/queueing/virtual_network.h), and
// Homa's beside it.
#include <rte_mbuf.h>

#include <algorithm>
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "bench/figures/figures.h"
#include "model/queueing/virtual_network.h"

namespace nanopu::figures {
namespace {

// Queue bytes at time t (ns) from a change log (step function).
uint32_t at(const std::vector<std::pair<double, uint32_t>>& log, double t) {
  uint32_t v = 0;
  for (const auto& [when, bytes] : log) {
    if (when > t) break;
    v = bytes;
  }
  return v;
}

}  // namespace

bool incast(const FigureOptions& o) {
  rte_mempool* pool = model_mempool();
  if (pool == nullptr) {
    std::fprintf(stderr, "nanopu-figures: incast needs DPDK's EAL and a mempool, which did not start\n");
    return false;
  }
  model::IncastConfig c;
  c.link_latency_ns = o.params.link_latency_ns;
  c.link_gbps = o.params.link_gbps;
  std::printf("Incast: 80 senders x 1024 B to one receiver, 81 KB queue, %.0f Gb/s, %.2f ns links, "
              "RTO %.1f us (modelled; the real NDP code on every host)\n",
              c.link_gbps, c.link_latency_ns, c.rto_ns / 1000);
  c.trimming = true;
  const model::IncastResult trim = model::run_incast(c, pool);
  c.trimming = false;
  const model::IncastResult drop = model::run_incast(c, pool);
  // Homa beside NDP on the same incast (its real transport, a priority
  // switch that trims): 1024-byte messages are all unscheduled, so this
  // shows its behaviour under the burst, not its grants.
  model::IncastConfig hc = c;
  hc.trimming = true;
  hc.homa = true;
  const model::IncastResult homa = model::run_incast(hc, pool);
  for (const auto* r : {&trim, &drop})
    std::printf("  %-9s last message %7.3f us  delivered %u/80  trimmed %llu dropped %llu "
                "retransmits %llu timeouts %llu\n",
                r == &trim ? "trimming" : "tail drop", r->last_delivery_ns / 1000, r->delivered,
                static_cast<unsigned long long>(r->trimmed), static_cast<unsigned long long>(r->dropped),
                static_cast<unsigned long long>(r->retransmits), static_cast<unsigned long long>(r->timeouts));
  std::printf("  Homa      last message %7.3f us  delivered %u/80  trimmed %llu retransmits %llu "
              "timeouts %llu (NDP with trimming: %.3f us)\n",
              homa.last_delivery_ns / 1000, homa.delivered, static_cast<unsigned long long>(homa.trimmed),
              static_cast<unsigned long long>(homa.retransmits),
              static_cast<unsigned long long>(homa.timeouts), trim.last_delivery_ns / 1000);
  // How the gain moves with the retransmit timeout (docs/wire.md: 0.7-9.4 us in the prototype).
  for (double rto : {700.0, 3000.0, 9400.0}) {
    model::IncastConfig s = c;
    s.rto_ns = rto;
    s.trimming = true;
    const double t = model::run_incast(s, pool).last_delivery_ns;
    s.trimming = false;
    const double d = model::run_incast(s, pool).last_delivery_ns;
    std::printf("  RTO %4.1f us: tail drop / trimming = %.2f\n", rto / 1000, d / t);
  }
  Table t{{"time ns", "trimming queue bytes", "tail drop queue bytes"}, {}};
  const double end = std::max(trim.last_delivery_ns, drop.last_delivery_ns);
  for (double x = 0; x <= end; x += end / 400)
    t.rows.push_back({absl::StrCat(x), absl::StrCat(at(trim.queue, x)), absl::StrCat(at(drop.queue, x))});
  const bool ok = write_figure(o, "incast", t, "line", "Bottleneck queue, 80-to-1 incast (modelled)", "bytes");
  Headline all{"messages delivered with trimming (of 80)", static_cast<double>(trim.delivered), 80};
  return report(o, "incast",
                {{"last message: tail drop / trimming", drop.last_delivery_ns / trim.last_delivery_ns, 3.0},
                 all},
                {{"Homa delivers all 80 too", homa.all_delivered}}) &&
         ok && trim.all_delivered && drop.all_delivered;
}

}  // namespace nanopu::figures
