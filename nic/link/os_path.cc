#include "nic/link/os_path.h"

namespace nanopu {

void OsPath::flush() {
  if (n_ == 0) return;
  const uint16_t sent = os_->tx_burst(out_, n_);
  counters_->rx_to_os += sent;
  // The kernel reads its TAP as it can; a frame it is not ready for is
  // lost as a busy NIC would lose it (its protocols retransmit).
  for (uint16_t i = sent; i < n_; ++i) rte_pktmbuf_free(out_[i]);
  counters_->rx_to_os_dropped += n_ - sent;
  n_ = 0;
  os_->flush();
}

uint16_t OsPath::from_os(rte_mbuf** frames, uint16_t n) {
  const uint16_t k = os_->rx_burst(frames, n);
  counters_->tx_from_os += k;
  return k;
}

}  // namespace nanopu
