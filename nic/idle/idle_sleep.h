// Adaptive polling for the NIC core (docs/design.md §9): after spin_tsc
// without work, with nothing in flight and no thread running on a worker
// core, the NIC sleeps until a packet (the port's RX interrupt or event fd,
// else short timed sleeps: rx_waiter.h), a thread's doorbell, or its next
// retransmission timer. It announces the sleep, re-checks for work, then
// sleeps; a waker publishes work, then checks the announcement (a full fence
// on both sides), so no wake-up is lost.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "absl/functional/function_ref.h"
#include "lib/contract/wakeup.h"
#include "nanopu/stats.h"
#include "nic/idle/rx_waiter.h"

namespace nanopu {

// What the NIC core says of itself after a poll.
struct IdleState {
  unsigned work = 0;           // packets and messages the poll handled
  bool workers_idle = false;   // no thread runs on any worker core
  bool holding = false;        // waiting for the link: nothing can progress
  bool quiescent = false;      // nothing in flight, queued or held
  uint64_t next_timer = UINT64_MAX;  // the transports' next deadline
};

class IdleSleep {
 public:
  static constexpr uint32_t kMaxSleepUs = 10000;  // then look at the world again

  // ports: DPDK ports whose RX interrupt may wake the NIC; io_fd: a
  // non-DPDK port's event fd (-1: none).
  IdleSleep(bool adaptive, uint64_t spin_tsc, uint64_t tsc_hz, std::vector<uint16_t> ports, int io_fd)
      : adaptive_(adaptive), spin_tsc_(spin_tsc), tsc_hz_(tsc_hz), waiter_(std::move(ports), doorbell_.fd(), io_fd) {}

  [[nodiscard]] bool adaptive() const { return adaptive_; }
  [[nodiscard]] Doorbell* doorbell() { return adaptive_ ? &doorbell_ : nullptr; }
  // After each poll: sleeps once idle long enough. `still_idle` looks for
  // work once the sleep is announced (and keeps what it finds).
  void after_poll(const IdleState& s, uint64_t now, NicCounters* counters,
                  absl::FunctionRef<bool()> still_idle);

 private:
  bool adaptive_;
  uint64_t spin_tsc_;
  uint64_t tsc_hz_;
  Doorbell doorbell_;
  RxWaiter waiter_;
  uint64_t idle_since_ = 0;
};

}  // namespace nanopu
