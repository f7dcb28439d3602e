#include "bench/e2e/server_host.h"

#include <rte_launch.h>

#include "absl/strings/str_cat.h"
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

void ServerHost::stop() {
  rt_->stop();
  if (launched_) (void)rte_eal_wait_lcore(lcore_);
  launched_ = false;
}

}  // namespace nanopu::bench
