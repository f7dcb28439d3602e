#include "nic/packetizer/packetization_buffer.h"

#include <algorithm>
#include <cassert>
#include <iterator>

namespace nanopu {

PacketizationBuffer::PacketizationBuffer(uint32_t slots) : slots_(slots) {
  free_.reserve(slots);
  for (uint32_t i = slots; i > 0; --i) free_.push_back(i - 1);
}

PacketizationBuffer::~PacketizationBuffer() {
  for (uint32_t i = 0; i < slots_.size(); ++i)
    if (slots_[i].used) release(i);
}

int PacketizationBuffer::allocate() {
  if (free_.empty()) return -1;
  const uint32_t s = free_.back();
  free_.pop_back();
  OutboundMessage& m = slots_[s];
  static_cast<OutboundState&>(m) = OutboundState{};  // pkts: already all null (release())
  assert(std::all_of(std::begin(m.pkts), std::end(m.pkts), [](const rte_mbuf* p) { return p == nullptr; }));
  m.used = true;
  return static_cast<int>(s);
}

void PacketizationBuffer::release(uint32_t slot) {
  OutboundMessage& m = slots_[slot];
  for (uint8_t i = 0; i < m.npkts; ++i) {
    if (!(m.acked >> i & 1) && m.pkts[i] != nullptr) rte_pktmbuf_free(m.pkts[i]);
    m.pkts[i] = nullptr;
  }
  m.used = false;
  free_.push_back(slot);
}

}  // namespace nanopu
