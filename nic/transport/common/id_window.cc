#include "nic/transport/common/id_window.h"

namespace nanopu {

IdWindow::~IdWindow() {
  for (const Held& h : held_) rte_pktmbuf_free(h.msg);
}

bool IdWindow::try_take(uint32_t dst_ip, uint16_t* id) {
  const uint32_t s = stream_of(dst_ip);
  return held_on_[s] == 0 && take_from(s, id);
}

void IdWindow::hold(rte_mbuf* msg, uint32_t dst_ip) {
  ++held_on_[stream_of(dst_ip)];
  held_.push_back({msg, dst_ip});
}

bool IdWindow::take_from(uint32_t stream, uint16_t* id) {
  Stream& st = streams_[stream];
  // Serial arithmetic: the span never passes kIdsInFlight unnoticed (it
  // grows by one per id and is checked each time), so it cannot wrap.
  if (static_cast<uint16_t>(st.next - st.oldest) >= wire::kIdsInFlight) {
    const OutboundMessage* o = st.oldest_slot < buffer_.capacity() ? &buffer_.at(st.oldest_slot) : nullptr;
    const bool still_there = o != nullptr && o->used && o->tx_msg_id == st.oldest &&
                             stream_of(o->dst_ip) == stream;
    if (still_there) return false;  // no scan while the oldest is in flight
    rescan(stream);
    if (static_cast<uint16_t>(st.next - st.oldest) >= wire::kIdsInFlight) return false;
  }
  *id = st.next++;
  return true;
}

void IdWindow::rescan(uint32_t stream) {
  Stream& st = streams_[stream];
  st.oldest = st.next;
  st.oldest_slot = UINT32_MAX;
  uint16_t span = 0;
  for (uint32_t slot = 0; slot < buffer_.capacity(); ++slot) {
    const OutboundMessage& m = buffer_.at(slot);
    if (!m.used || stream_of(m.dst_ip) != stream) continue;
    const auto behind = static_cast<uint16_t>(st.next - m.tx_msg_id);
    if (behind > span) {
      span = behind;
      st.oldest = m.tx_msg_id;
      st.oldest_slot = slot;
    }
  }
}

}  // namespace nanopu
