// The nanopu side of the end-to-end benchmarks: one emulated host whose
// worker cores each run an echo thread on one context (docs/apps.md loopback),
// its NIC loop and workers sharing one lcore.
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "nanopu/config.h"
#include "nanopu/runtime.h"

namespace nanopu::bench {

// Host config on DPDK port `port_id`, lcore 1, `workers` emulated worker cores.
[[nodiscard]] Config server_config(uint16_t port_id, uint32_t workers);

class ServerHost {
 public:
  // Creates the runtime and one echo thread per worker core, each bound to
  // kServerContext, or with context_per_worker to kServerContext + its worker.
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<ServerHost>> start(
      const Config& c, uint32_t workers, bool context_per_worker = false);
  // Runs it on its lcore (config lcores[0]) from the EAL main lcore.
  [[nodiscard]] absl::Status launch();
  // Runs it on the calling lcore until stop() or a signal.
  [[nodiscard]] absl::Status run_here() { return rt_->run(); }
  // Stops it and waits for its lcore.
  void stop();
  [[nodiscard]] Runtime& runtime() { return *rt_; }
  // With NANOPU_STAGE_CLOCK (nic/stages/stage_clock.h): where the NIC
  // loop's time went, in ns per request served, on stderr; else nothing.
  void print_stages(const std::string& what) const;

 private:
  static int lcore_main(void* self);
  std::unique_ptr<Runtime> rt_;
  unsigned lcore_ = 0;
  bool launched_ = false;
  absl::Status run_status_;
};

}  // namespace nanopu::bench
