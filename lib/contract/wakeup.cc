#include "lib/contract/wakeup.h"

#include <linux/futex.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cstdint>

namespace nanopu {

void futex_wait(const std::atomic<uint32_t>* word, uint32_t expected, uint32_t timeout_us) {
  timespec ts{static_cast<time_t>(timeout_us / 1000000), static_cast<long>(timeout_us % 1000000) * 1000};
  // FUTEX_WAIT returns at once if *word != expected: no lost wake-up.
  (void)syscall(SYS_futex, reinterpret_cast<const uint32_t*>(word), FUTEX_WAIT_PRIVATE, expected, &ts,
                nullptr, 0);
}

void futex_wake(const std::atomic<uint32_t>* word) {
  (void)syscall(SYS_futex, reinterpret_cast<const uint32_t*>(word), FUTEX_WAKE_PRIVATE, INT32_MAX,
                nullptr, nullptr, 0);
}

Doorbell::Doorbell() : fd_(eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) {}

Doorbell::~Doorbell() {
  if (fd_ >= 0) close(fd_);
}

void Doorbell::ring() {
  if (fd_ < 0) return;
  const uint64_t one = 1;
  (void)!write(fd_, &one, sizeof one);
}

void Doorbell::drain() {
  if (fd_ < 0) return;
  uint64_t v = 0;
  (void)!read(fd_, &v, sizeof v);
}

}  // namespace nanopu
