#include "nic/reassembly/reassembly_buffer.h"

namespace nanopu {

ReassemblyBuffer::ReassemblyBuffer(uint32_t slots, uint32_t remembered)
    : slots_(slots), completed_ring_(remembered, 0) {
  free_.reserve(slots);
  for (uint32_t i = slots; i > 0; --i) free_.push_back(i - 1);
  // Reserved up front: the NIC core never allocates after start.
  index_.reserve(slots);
  completed_.reserve(remembered);
}

ReassemblyBuffer::~ReassemblyBuffer() {
  for (uint32_t i = 0; i < slots_.size(); ++i)
    if (slots_[i].used) release(i, false);
}

int ReassemblyBuffer::find(uint64_t key) const {
  auto it = index_.find(key);
  return it == index_.end() ? -1 : static_cast<int>(it->second);
}

int ReassemblyBuffer::allocate(uint64_t key) {
  if (free_.empty()) return -1;
  const uint32_t s = free_.back();
  free_.pop_back();
  InboundMessage& m = slots_[s];
  static_cast<InboundState&>(m) = InboundState{};  // pkts: already all null
  m.used = true;
  m.key = key;
  index_.emplace(key, s);
  return static_cast<int>(s);
}

void ReassemblyBuffer::release(uint32_t slot, bool keep_packets) {
  InboundMessage& m = slots_[slot];
  // Only the first npkts entries can be set (pkt_offset < npkts).
  for (uint8_t i = 0; i < m.npkts; ++i) {
    if (!keep_packets && m.pkts[i] != nullptr) rte_pktmbuf_free(m.pkts[i]);
    m.pkts[i] = nullptr;
  }
  index_.erase(m.key);
  m.used = false;
  free_.push_back(slot);
}

void ReassemblyBuffer::remember_completed(uint64_t key, uint16_t src_context, uint16_t msg_len,
                                          uint32_t epoch, uint64_t now) {
  if (completed_ring_.empty()) return;
  uint64_t& victim = completed_ring_[completed_next_];
  if (victim != 0) completed_.erase(victim);
  victim = key;
  completed_[key] = Completed{src_context, msg_len, epoch, now};
  completed_next_ = (completed_next_ + 1) % completed_ring_.size();
}

bool ReassemblyBuffer::recently_completed(uint64_t key, const wire::NdpHeader& h, uint64_t now,
                                          uint64_t horizon) const {
  auto it = completed_.find(key);
  if (it == completed_.end()) return false;
  const Completed& c = it->second;
  return c.src_context == h.src_context && c.msg_len == h.msg_len &&
         c.epoch == wire::sender_epoch(h) && now - c.tsc <= horizon;
}

}  // namespace nanopu
