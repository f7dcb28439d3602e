// The NIC core's port: where frames come from and go to. A DPDK ethdev queue
// pair by default (EthdevIo); the platform layer supplies others (the
// io_uring UDP socket of runtime/platform/uring_port.h). The frames are the same
// Ethernet + IPv4 + transport-header frames either way (docs/wire.md), so the
// pipeline, the transport and the packetizer do not know which backend runs.
//
// Why a seam of our own rather than a DPDK PMD: an ethdev driver needs DPDK's
// internal driver API (ethdev_driver.h), which Debian's DPDK marks internal
// and does not keep stable; two virtual calls per poll cost nothing beside a
// burst.
#pragma once

#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include <cstdint>

#include "lib/base/tsan_handoff.h"
#include "nic/link/burst_fence.h"

namespace nanopu {

class PacketIo {
 public:
  virtual ~PacketIo() = default;
  // As rte_eth_rx_burst / rte_eth_tx_burst: received frames are the caller's;
  // sent frames are the port's (it frees them), the rest stay the caller's.
  // A port may hold what tx_burst took until flush(), once per poll.
  virtual uint16_t rx_burst(rte_mbuf** pkts, uint16_t n) = 0;
  virtual uint16_t tx_burst(rte_mbuf** pkts, uint16_t n) = 0;
  // An eventfd that counts up when frames may have arrived (adaptive
  // polling sleeps on it; nic/idle/rx_waiter.h); -1: none.
  [[nodiscard]] virtual int rx_event_fd() const { return -1; }
  // End of a NIC poll: hand what tx_burst took to the device (one system
  // call for the io_uring port, where one per burst would double them).
  virtual void flush() {}
  // The poller is done (end of a run, on its thread): give back buffers the
  // port lends to something else (the kernel, for io_uring).
  virtual void quiesce() {}
};

// RX/TX queue 0 of a DPDK port.
class EthdevIo final : public PacketIo {
 public:
  // A NIC core of several receives from and sends on queues of its own
  // (kNoRx: it receives nothing from the port).
  static constexpr uint16_t kNoRx = UINT16_MAX;
  explicit EthdevIo(uint16_t port_id, uint16_t rx_queue = 0, uint16_t tx_queue = 0)
      : port_id_(port_id), rx_queue_(rx_queue), tx_queue_(tx_queue) {}
  // Marked when a PMD that unmaps under a poller is open (burst_fence.h).
  // A frame may come from another core of this process (net_ring): the
  // TSan hand-off is declared on both sides (lib/base/tsan_handoff.h).
  uint16_t rx_burst(rte_mbuf** pkts, uint16_t n) override {
    if (rx_queue_ == kNoRx) return 0;
    const uint16_t k =
        burst_fence::fenced([&] { return rte_eth_rx_burst(port_id_, rx_queue_, pkts, n); });
    for (uint16_t i = 0; i < k; ++i) NANOPU_TSAN_ACQUIRE(pkts[i]);
    return k;
  }
  uint16_t tx_burst(rte_mbuf** pkts, uint16_t n) override {
    for (uint16_t i = 0; i < n; ++i) NANOPU_TSAN_RELEASE(pkts[i]);
    return burst_fence::fenced([&] { return rte_eth_tx_burst(port_id_, tx_queue_, pkts, n); });
  }

 private:
  uint16_t port_id_;
  uint16_t rx_queue_;
  uint16_t tx_queue_;
};

}  // namespace nanopu
