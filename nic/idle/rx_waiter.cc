#include "nic/idle/rx_waiter.h"
#include "lib/base/log.h"

#include <poll.h>
#include <rte_ethdev.h>
#include <rte_interrupts.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <rte_errno.h>

#include <algorithm>
#include <cstdio>
#include <utility>

namespace nanopu {

RxWaiter::RxWaiter(std::vector<uint16_t> ports, int wake_fd, int rx_fd)
    : ports_(std::move(ports)), wake_fd_(wake_fd), rx_fd_(rx_fd) {}

void RxWaiter::register_once() {
  registered_ = true;
  interrupts_ = !ports_.empty();
  for (uint16_t p : ports_)
    if (int rc = rte_eth_dev_rx_intr_ctl_q(p, 0, RTE_EPOLL_PER_THREAD, RTE_INTR_EVENT_ADD, nullptr);
        rc != 0) {
      interrupts_ = false;  // this PMD has no RX interrupt: timed sleeps
      char name[RTE_ETH_NAME_MAX_LEN] = {};
      (void)rte_eth_dev_get_name_by_port(p, name);
      NANOPU_LOG(kInfo,
                 "port %u (%s) has no RX interrupt (%s): when idle it sleeps in "
                 "steps of %u..%u us (adaptive polling)",
                   p, name, rte_strerror(-rc), kFirstTimedSleepUs, kMaxTimedSleepUs);
    }
  if (interrupts_ && wake_fd_ >= 0) {
    wake_event_.epdata.event = EPOLLIN;
    if (rte_epoll_ctl(RTE_EPOLL_PER_THREAD, EPOLL_CTL_ADD, wake_fd_, &wake_event_) != 0)
      interrupts_ = false;  // cannot wait on both: timed sleeps on the fd alone
  }
}

bool RxWaiter::sleep(uint32_t timeout_us, absl::FunctionRef<bool()> still_idle) {
  if (rx_fd_ >= 0) {
    // Readable once a frame is in: still_idle() looks after arming, so one
    // that came before is seen, not slept through.
    uint64_t events = 0;
    (void)!read(rx_fd_, &events, sizeof events);
    if (!still_idle()) return false;
    ++sleeps_;
    pollfd pfd[2] = {{rx_fd_, POLLIN, 0}, {wake_fd_, POLLIN, 0}};
    const timespec ts{timeout_us / 1000000, static_cast<long>(timeout_us % 1000000) * 1000};
    (void)ppoll(pfd, wake_fd_ >= 0 ? 2 : 1, &ts, nullptr);
    return true;
  }
  if (!registered_) register_once();
  if (!interrupts_) {
    if (!still_idle()) return false;
    ++sleeps_;
    const uint32_t us = std::min(timeout_us, step_us_);
    step_us_ = std::min(kMaxTimedSleepUs, 2 * step_us_);
    const timespec ts{0, static_cast<long>(us) * 1000};
    pollfd pfd{wake_fd_, POLLIN, 0};
    (void)ppoll(&pfd, wake_fd_ >= 0 ? 1 : 0, &ts, nullptr);
    return true;
  }
  for (uint16_t p : ports_) (void)rte_eth_dev_rx_intr_enable(p, 0);
  const bool idle = still_idle();
  if (idle) {
    ++sleeps_;
    rte_epoll_event events[8];
    const int ms = static_cast<int>(std::max<uint32_t>(1, (timeout_us + 999) / 1000));
    (void)rte_epoll_wait(RTE_EPOLL_PER_THREAD, events, 8, ms);
  }
  // Masked again while busy: the peer then writes no interrupt per packet.
  for (uint16_t p : ports_) (void)rte_eth_dev_rx_intr_disable(p, 0);
  return idle;
}

}  // namespace nanopu
