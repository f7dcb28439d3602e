// An HPU lcore (docs/design.md §12): handlers run on a core of their own
// instead of the NIC core, as PsPIN's HPUs run beside its NIC pipeline
// (PsPIN §III). The NIC core hands a matched message over on one ring and
// takes the finished task back on another (single producer, single consumer
// each); the HPU runs the handlers and makes their outputs' buffers from
// the pool (its lcore's cache). Every message of a context goes to one HPU,
// its home (PsPIN keeps a message's tasks in its home cluster; a context
// here, since handlers share its memory without atomics), so a context's
// messages are handled, and come back, in the order they arrived.
#pragma once

#include <rte_mbuf.h>
#include <rte_ring.h>

#include <atomic>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "nic/spin/spin_run.h"
#include "nic/spin/spin_task.h"

namespace nanopu {

class SpinEngine;

class HpuCore {
 public:
  // Rings of `tasks` entries (the tasks the engine owns).
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<HpuCore>> create(SpinEngine* engine, rte_mempool* pool,
                                                                       const std::string& name, uint32_t tasks);
  ~HpuCore();
  HpuCore(const HpuCore&) = delete;
  HpuCore& operator=(const HpuCore&) = delete;

  // Its loop, for rte_eal_remote_launch(HpuCore::main, hpu, lcore): until
  // stop() and nothing left to run.
  static int main(void* hpu);
  void stop() { stop_.store(true, std::memory_order_release); }

  // The NIC core's side.
  [[nodiscard]] bool submit(SpinTask* t) { return rte_ring_sp_enqueue(req_, t) == 0; }
  [[nodiscard]] unsigned collect(SpinTask** out, unsigned max) {
    return rte_ring_sc_dequeue_burst(done_, reinterpret_cast<void**>(out), max, nullptr);
  }

 private:
  HpuCore(SpinEngine* engine, rte_mempool* pool) : engine_(engine), pool_(pool) {}
  void loop();

  SpinEngine* engine_;
  rte_mempool* pool_;
  rte_ring* req_ = nullptr;
  rte_ring* done_ = nullptr;
  SpinRun run_;  // this core's Handle
  std::atomic<bool> stop_{false};
};

}  // namespace nanopu
