// An in-memory port for a host stepped on one thread (nanopu-bench-rpc):
// the peer puts frames in, the host's sends go straight to the peer's
// absorb() and are freed, as a PMD's transmit would free them.
#pragma once

#include <rte_mbuf.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "bench/e2e/request_peer.h"
#include "nic/link/packet_io.h"

namespace nanopu::bench {

class MemIo final : public PacketIo {
 public:
  explicit MemIo(RequestPeer* peer) : peer_(peer) {}
  void put(rte_mbuf* const* pkts, uint16_t n) { rx_.insert(rx_.end(), pkts, pkts + n); }
  uint16_t rx_burst(rte_mbuf** pkts, uint16_t n) override {
    const auto k = static_cast<uint16_t>(std::min<size_t>(n, rx_.size()));
    std::copy(rx_.begin(), rx_.begin() + k, pkts);
    rx_.erase(rx_.begin(), rx_.begin() + k);
    return k;
  }
  uint16_t tx_burst(rte_mbuf** pkts, uint16_t n) override {
    peer_->absorb(pkts, n);
    rte_pktmbuf_free_bulk(pkts, n);
    sent_ += n;
    return n;
  }
  [[nodiscard]] uint64_t sent() const { return sent_; }

 private:
  RequestPeer* peer_;
  std::vector<rte_mbuf*> rx_;
  uint64_t sent_ = 0;
};

}  // namespace nanopu::bench
