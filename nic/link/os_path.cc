#include "nic/link/os_path.h"

#include <algorithm>

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

OsPath::~OsPath() {
  for (uint16_t i = 0; i < n_; ++i) rte_pktmbuf_free(out_[i]);
  for (uint16_t i = 0; i < in_n_; ++i) rte_pktmbuf_free(in_[i]);
}

uint16_t OsPath::from_os(rte_mbuf** frames, uint16_t n) {
  uint16_t k = 0;
  if (in_n_ != 0) {  // what the last look before a sleep found
    k = std::min(in_n_, n);
    std::copy(in_, in_ + k, frames);
    std::copy(in_ + k, in_ + in_n_, in_);
    in_n_ = static_cast<uint16_t>(in_n_ - k);
  }
  if (k < n) k = static_cast<uint16_t>(k + os_->rx_burst(frames + k, static_cast<uint16_t>(n - k)));
  counters_->tx_from_os += k;
  return k;
}

bool OsPath::has_frames() {
  if (in_n_ == 0) in_n_ = os_->rx_burst(in_, kBurst);
  return in_n_ != 0;
}

}  // namespace nanopu
