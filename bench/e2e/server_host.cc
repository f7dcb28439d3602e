#include "bench/e2e/server_host.h"

#include <rte_cycles.h>
#include <rte_launch.h>

#include <algorithm>
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "nic/stages/stage_clock.h"
#include "apps/loopback/loopback.h"
#include "bench/e2e/measurements.h"

namespace nanopu::bench {

Config server_config(uint16_t port_id, uint32_t workers) {
  Config c;
  c.poll = nanopu::PollMode::kBusy;  // benchmarks poll: a core per poller
  c.lcores = {1};
  c.shared_workers = workers;
  c.port_id = port_id;
  c.ip = kServerIp;
  c.link_wait_s = 0;
  // A deep window of large messages queues for longer than the 50 us
  // default timeout on this emulator: without this, spurious retransmits
  // would be part of the cost measured.
  c.rto_us = 1000;
  return c;
}

absl::StatusOr<std::unique_ptr<ServerHost>> ServerHost::start(const Config& c, uint32_t workers,
                                                              bool context_per_worker) {
  absl::StatusOr<std::unique_ptr<Runtime>> rt = Runtime::create(c);
  if (!rt.ok()) return rt.status();
  std::unique_ptr<ServerHost> h(new ServerHost);
  h->rt_ = std::move(*rt);
  h->lcore_ = c.lcores.front();
  for (uint32_t w = 0; w < workers; ++w) {
    const auto context = static_cast<uint16_t>(kServerContext + (context_per_worker ? w : 0));
    absl::StatusOr<Thread*> t = h->rt_->spawn(
        [context](Thread& th) {
          (void)apps::serve_loopback(th, context, 0, apps::LoopbackMode::kEcho);
        },
        w);
    if (!t.ok()) return t.status();
  }
  return h;
}

int ServerHost::lcore_main(void* self) {
  auto* h = static_cast<ServerHost*>(self);
  h->run_status_ = h->rt_->run();
  return 0;
}

absl::Status ServerHost::launch() {
  if (int rc = rte_eal_remote_launch(lcore_main, this, lcore_); rc != 0)
    return absl::InternalError(absl::StrCat("cannot launch the server on lcore ", lcore_));
  launched_ = true;
  return absl::OkStatus();
}

void ServerHost::print_stages(const std::string& what) const {
  if (!kStageClock) return;
  const std::vector<uint64_t> ticks = rt_->nic_stage_ticks();
  const NicCounters& n = rt_->nic_counters();
  if (n.rx_msgs_delivered == 0) return;
  const double ns = 1e9 / static_cast<double>(rte_get_tsc_hz()) / static_cast<double>(n.rx_msgs_delivered);
  double total = 0;
  std::string line;
  for (size_t i = 0; i < ticks.size(); ++i) {
    total += static_cast<double>(ticks[i]) * ns;
    absl::StrAppend(&line, "  ", std::string(nic_stage_name(i)), " ", absl::StrFormat("%.1f", static_cast<double>(ticks[i]) * ns));
  }
  std::fprintf(stderr, "%s: NIC loop, ns per request (NANOPU_STAGE_CLOCK; %.2f requests a poll, %.0f %% of polls idle):%s  = %.1f\n",
               what.c_str(), static_cast<double>(n.rx_msgs_delivered) / static_cast<double>(std::max<uint64_t>(1, n.nic_polls)),
               100.0 * static_cast<double>(n.nic_idle_polls) / static_cast<double>(std::max<uint64_t>(1, n.nic_polls)),
               line.c_str(), total);
}

void ServerHost::stop() {
  rt_->stop();
  if (launched_) (void)rte_eal_wait_lcore(lcore_);
  launched_ = false;
}

}  // namespace nanopu::bench
