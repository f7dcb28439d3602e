#include "nic/reassembly/reassembly_buffer.h"

namespace nanopu {

ReassemblyBuffer::ReassemblyBuffer(uint32_t slots) : slots_(slots) {
  free_.reserve(slots);
  for (uint32_t i = slots; i > 0; --i) free_.push_back(i - 1);
  // Reserved up front: the NIC core never allocates after start.
  index_.reserve(slots);
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

}  // namespace nanopu
