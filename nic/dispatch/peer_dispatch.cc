#include "nic/dispatch/peer_dispatch.h"

#include <cassert>
#include <cstring>

#include "lib/wire/frame.h"

namespace nanopu {

uint32_t PeerDispatch::owner(const rte_mbuf* m) const {
  // Ethernet (14 bytes), then IPv4's source address at offset 12.
  constexpr size_t kEtherType = 12, kSrcIp = 14 + 12;
  if (rte_pktmbuf_data_len(m) < kSrcIp + 4) return self_;
  const auto* f = rte_pktmbuf_mtod(m, const uint8_t*);
  if (f[kEtherType] != (wire::kEtherTypeIpv4 >> 8) ||
      f[kEtherType + 1] != (wire::kEtherTypeIpv4 & 0xff))
    return self_;
  uint32_t be = 0;
  std::memcpy(&be, f + kSrcIp, 4);
  return nic_core_for_peer(rte_be_to_cpu_32(be), nic_cores_);
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
