// Sleeping until a DPDK port has packets (adaptive polling, docs/design.md
// §9): the port's RX-queue interrupt where the PMD has one (net_memif,
// net_tap, ...: DPDK's per-thread epoll set, as l3fwd-power does), else a
// short timed sleep; either way also woken by an optional file descriptor
// (the NIC core's Doorbell). Used by the NIC core and by nanopu-switch.
#pragma once

#include <rte_epoll.h>

#include <cstdint>
#include <vector>

#include "absl/functional/function_ref.h"

namespace nanopu {

class RxWaiter {
 public:
  // On ports without RX interrupts (in Debian's DPDK 22.11 that is every PMD
  // nanopu uses but net_tap: net_memif, net_ring, net_null, net_af_packet)
  // an idle poller sleeps in steps that double from kFirstTimedSleepUs to
  // kMaxTimedSleepUs while nothing arrives: the price of having no
  // interrupt is up to kMaxTimedSleepUs of added latency after a long idle
  // spell; each wake-up costs a timer interrupt (~20 us on a small VM), so
  // the cap keeps an idle poller near 2% of a CPU.
  static constexpr uint32_t kFirstTimedSleepUs = 20;
  static constexpr uint32_t kMaxTimedSleepUs = 1000;

  // ports: RX queue 0 of each; wake_fd: also wake when readable (-1: none);
  // rx_fd: instead of ports, a descriptor readable when frames arrive (the
  // io_uring backend's eventfd): sleeps on it and wake_fd, no timed steps.
  RxWaiter(std::vector<uint16_t> ports, int wake_fd, int rx_fd = -1);
  RxWaiter(const RxWaiter&) = delete;
  RxWaiter& operator=(const RxWaiter&) = delete;

  // Arms the interrupts, asks still_idle() (which may poll the ports: a
  // packet that arrived before arming raises no interrupt), and sleeps only
  // if it says so: until a packet, the wake fd, or timeout_us (without
  // interrupts: the next timed step). Must be called on the polling thread
  // (DPDK's epoll set is per thread).
  // Returns whether it slept.
  bool sleep(uint32_t timeout_us, absl::FunctionRef<bool()> still_idle);
  // Work arrived: the next timed sleep starts short again.
  void reset() { step_us_ = kFirstTimedSleepUs; }

  // Whether every port woke this thread by interrupt (after the first sleep).
  [[nodiscard]] bool interrupts() const { return interrupts_; }
  [[nodiscard]] uint64_t sleeps() const { return sleeps_; }

 private:
  void register_once();

  std::vector<uint16_t> ports_;
  int wake_fd_;
  int rx_fd_;
  bool registered_ = false;
  bool interrupts_ = false;
  uint64_t sleeps_ = 0;
  uint32_t step_us_ = kFirstTimedSleepUs;
  rte_epoll_event wake_event_{};  // DPDK keeps a pointer to it
};

}  // namespace nanopu
