#include "nic/transport/common/id_window.h"

namespace nanopu {

IdWindow::~IdWindow() {
  for (const Held& h : held_) rte_pktmbuf_free(h.msg);
}

IdWindow::Peer& IdWindow::peer(uint32_t ip) {
  if (ip == last_ip_ && last_index_ != UINT32_MAX) return peers_[last_index_];
  const auto [it, added] = index_.try_emplace(ip, static_cast<uint32_t>(peers_.size()));
  if (added) peers_.emplace_back();
  last_ip_ = ip;
  last_index_ = it->second;
  return peers_[it->second];
}

bool IdWindow::try_take(uint32_t dst_ip, uint16_t* id) {
  Peer& p = peer(dst_ip);
  return p.held == 0 && take_from(dst_ip, p, id);
}

void IdWindow::hold(rte_mbuf* msg, uint32_t dst_ip, uint16_t dst_run) {
  ++peer(dst_ip).held;
  held_.push_back({msg, dst_ip, dst_run});
}

bool IdWindow::take_from(uint32_t ip, Peer& p, uint16_t* id) {
  // Serial arithmetic: the span never passes kIdsInFlight unnoticed (it
  // grows by one per id and is checked each time), so it cannot wrap.
  if (static_cast<uint16_t>(p.next - p.oldest) >= wire::kIdsInFlight) {
    const OutboundMessage* o = p.oldest_slot < buffer_.capacity() ? &buffer_.at(p.oldest_slot) : nullptr;
    if (o != nullptr && o->used && o->tx_msg_id == p.oldest && o->dst_ip == ip)
      return false;  // the oldest is still in flight: no scan
    rescan(ip, p);
    if (static_cast<uint16_t>(p.next - p.oldest) >= wire::kIdsInFlight) return false;
  }
  *id = p.next++;
  return true;
}

void IdWindow::rescan(uint32_t ip, Peer& p) {
  p.oldest = p.next;
  p.oldest_slot = UINT32_MAX;
  uint16_t span = 0;
  for (uint32_t slot = 0; slot < buffer_.capacity(); ++slot) {
    const OutboundMessage& m = buffer_.at(slot);
    if (!m.used || m.dst_ip != ip) continue;
    const auto behind = static_cast<uint16_t>(p.next - m.tx_msg_id);
    if (behind > span) {
      span = behind;
      p.oldest = m.tx_msg_id;
      p.oldest_slot = slot;
    }
  }
}

}  // namespace nanopu
