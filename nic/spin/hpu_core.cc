#include "nic/spin/hpu_core.h"

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_pause.h>

#include "absl/strings/str_cat.h"
#include "nic/spin/spin_engine.h"

namespace nanopu {

absl::StatusOr<std::unique_ptr<HpuCore>> HpuCore::create(SpinEngine* engine, rte_mempool* pool,
                                                         const std::string& name, uint32_t tasks) {
  std::unique_ptr<HpuCore> h(new HpuCore(engine, pool));
  const unsigned flags = RING_F_SP_ENQ | RING_F_SC_DEQ | RING_F_EXACT_SZ;
  h->req_ = rte_ring_create((name + "q").c_str(), tasks, SOCKET_ID_ANY, flags);
  h->done_ = rte_ring_create((name + "d").c_str(), tasks, SOCKET_ID_ANY, flags);
  if (h->req_ == nullptr || h->done_ == nullptr)
    return absl::ResourceExhaustedError(absl::StrCat("sPIN HPU ", name, ": cannot make its rings: ",
                                                     rte_strerror(rte_errno)));
  return h;
}

HpuCore::~HpuCore() {
  rte_ring_free(req_);
  rte_ring_free(done_);
}

int HpuCore::main(void* hpu) {
  static_cast<HpuCore*>(hpu)->loop();
  return 0;
}

void HpuCore::loop() {
  SpinTask* tasks[32];
  for (;;) {
    const unsigned n = rte_ring_sc_dequeue_burst(req_, reinterpret_cast<void**>(tasks), 32, nullptr);
    // Live only (never on a modelled clock): the TSC is the NIC core's clock.
    for (unsigned i = 0; i < n; ++i) engine_->execute(*tasks[i], run_, pool_, rte_rdtsc());
    // As many tasks as the rings hold exist: the done ring always has room.
    if (n != 0) (void)rte_ring_sp_enqueue_burst(done_, reinterpret_cast<void**>(tasks), n, nullptr);
    if (n == 0) {
      // Stop only once nothing is left: a message taken is always answered.
      if (stop_.load(std::memory_order_acquire) && rte_ring_empty(req_)) return;
      rte_pause();
    }
  }
}

}  // namespace nanopu
