#include "nic/dispatch/peer_dispatch.h"

#include <cassert>

#include "lib/wire/frame.h"

namespace nanopu {

uint32_t PeerDispatch::owner(const rte_mbuf* m) const {
  uint32_t src_ip = 0;
  if (!wire::peek_src_ip(rte_pktmbuf_mtod(m, const uint8_t*), rte_pktmbuf_data_len(m), &src_ip))
    return self_;
  return nic_core_for_peer(src_ip, nic_cores_);
}

uint16_t PeerDispatch::hand_off(rte_mbuf** rx, uint16_t n, uint16_t room, NicCounters* counters) {
  assert(n <= kMaxBurst && room <= kMaxBurst);
  rte_mbuf* out[kMaxNicCores][kMaxBurst];
  uint16_t out_n[kMaxNicCores] = {};
  uint16_t kept = 0;
  for (uint16_t i = 0; i < n; ++i) {
    const uint32_t k = owner(rx[i]);
    if (k == self_)
      rx[kept++] = rx[i];
    else
      out[k][out_n[k]++] = rx[i];
  }
  for (uint32_t k = 0; k < nic_cores_; ++k) {
    if (out_n[k] == 0) continue;
    const unsigned put = inboxes_[k]->push_burst(out[k], out_n[k]);
    counters->rx_handed_off += put;
    if (put < out_n[k]) [[unlikely]] {  // the owner is that far behind: as a full RX ring would
      counters->rx_drop_handoff_full += out_n[k] - put;
      rte_pktmbuf_free_bulk(out[k] + put, out_n[k] - put);
    }
  }
  if (kept < room)
    kept += static_cast<uint16_t>(inboxes_[self_]->pop_burst(rx + kept, room - kept));
  return kept;
}

}  // namespace nanopu
