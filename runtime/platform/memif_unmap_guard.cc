#include "runtime/platform/memif_unmap_guard.h"

#include <rte_ethdev.h>
#include <rte_interrupts.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstring>

#include "nic/link/burst_fence.h"

// A sanitizer runtime's own munmap (it keeps shadow memory right), when one
// is linked in; ours replaces the weak alias it exports as `munmap`.
extern "C" int __interceptor_munmap(void* addr, size_t len) __attribute__((weak));

// Every munmap of the process comes here (the executable exports it:
// CMake's INTERFACE link option and nanopu.pc; DPDK's PMDs, loaded as
// plugins, call munmap through their PLT). Only DPDK's interrupt thread, and
// only once a guarded port is open, waits for the bursts in progress first.
extern "C" int munmap(void* addr, size_t len) noexcept {
  if (nanopu::burst_fence::enabled() && rte_thread_is_intr() != 0) nanopu::burst_fence::wait_for_bursts();
  if (__interceptor_munmap != nullptr) return __interceptor_munmap(addr, len);
  return static_cast<int>(syscall(SYS_munmap, addr, len));
}

namespace nanopu {

void guard_unmaps_of(uint16_t port_id) {
  rte_eth_dev_info info{};
  if (rte_eth_dev_info_get(port_id, &info) != 0 || info.driver_name == nullptr) return;
  if (std::strstr(info.driver_name, "memif") != nullptr) burst_fence::enable();
}

}  // namespace nanopu
