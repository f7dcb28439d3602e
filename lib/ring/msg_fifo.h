// One direction of a thread's message FIFO (the netRX/netTX queues of nanoPU
// §2.1): single producer, single consumer, mbuf pointers.
//
// Built on rte_ring in SP/SC mode rather than a hand-written ring: its head
// and tail already sit on separate cache lines and its burst paths are tuned;
// bench/ compares the hop against a raw SPSC ring.
#pragma once

#include <rte_mbuf.h>
#include <rte_ring.h>

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"

namespace nanopu {

class MsgFifo {
 public:
  MsgFifo() = default;
  MsgFifo(const MsgFifo&) = delete;
  MsgFifo& operator=(const MsgFifo&) = delete;
  MsgFifo(MsgFifo&& o) noexcept : ring_(o.ring_) { o.ring_ = nullptr; }
  MsgFifo& operator=(MsgFifo&& o) noexcept;
  ~MsgFifo();

  // capacity: messages the FIFO holds (rounded up to a power of two minus one).
  [[nodiscard]] static absl::StatusOr<MsgFifo> create(const std::string& name, uint32_t capacity);

  [[nodiscard]] bool push(rte_mbuf* m) { return rte_ring_sp_enqueue(ring_, m) == 0; }
  [[nodiscard]] unsigned push_burst(rte_mbuf* const* ms, unsigned n) {
    return rte_ring_sp_enqueue_burst(ring_, reinterpret_cast<void* const*>(ms), n, nullptr);
  }
  [[nodiscard]] rte_mbuf* pop() {
    void* p = nullptr;
    return rte_ring_sc_dequeue(ring_, &p) == 0 ? static_cast<rte_mbuf*>(p) : nullptr;
  }
  [[nodiscard]] unsigned pop_burst(rte_mbuf** ms, unsigned n) {
    return rte_ring_sc_dequeue_burst(ring_, reinterpret_cast<void**>(ms), n, nullptr);
  }
  [[nodiscard]] bool empty() const { return rte_ring_empty(ring_); }
  [[nodiscard]] unsigned count() const { return rte_ring_count(ring_); }
  [[nodiscard]] unsigned free_count() const { return rte_ring_free_count(ring_); }
  [[nodiscard]] unsigned capacity() const { return rte_ring_get_capacity(ring_); }

  // Frees every message still queued (shutdown).
  void drain();

 private:
  explicit MsgFifo(rte_ring* r) : ring_(r) {}
  rte_ring* ring_ = nullptr;
};

}  // namespace nanopu
