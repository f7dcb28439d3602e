// One direction of a thread's message FIFO (the netRX/netTX queues of nanoPU
// §2.1): one consumer, mbuf pointers; one producer, or several for a
// thread's RX FIFO on a host with several NIC cores (docs/design.md §7).
// A thread's RX entries may be inline slots (inline_msg.h), not mbufs.
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
#include "lib/base/tsan_handoff.h"

namespace nanopu {

// The rte_ring's own ordering is invisible to ThreadSanitizer (tsan.supp):
// each message's hand-off is declared to it explicitly.
class MsgFifo {
 public:
  MsgFifo() = default;
  MsgFifo(const MsgFifo&) = delete;
  MsgFifo& operator=(const MsgFifo&) = delete;
  MsgFifo(MsgFifo&& o) noexcept : ring_(o.ring_) { o.ring_ = nullptr; }
  MsgFifo& operator=(MsgFifo&& o) noexcept;
  ~MsgFifo();

  // capacity: messages the FIFO holds, exactly (an RING_F_EXACT_SZ ring).
  // producers > 1: several cores push (a compare-and-swap per burst).
  [[nodiscard]] static absl::StatusOr<MsgFifo> create(const std::string& name, uint32_t capacity,
                                                      uint32_t producers = 1);

  // The ring's own producer mode (single or multi, fixed at create()).
  [[nodiscard]] bool push(rte_mbuf* m) {
    NANOPU_TSAN_RELEASE(m);
    return rte_ring_enqueue(ring_, m) == 0;
  }
  // Pushes up to n; returns how many fit (the rest stay the caller's).
  [[nodiscard]] unsigned push_burst(rte_mbuf* const* ms, unsigned n) {
    for (unsigned i = 0; i < n; ++i) NANOPU_TSAN_RELEASE(ms[i]);
    return rte_ring_enqueue_burst(ring_, reinterpret_cast<void* const*>(ms), n, nullptr);
  }
  [[nodiscard]] rte_mbuf* pop() {
    void* p = nullptr;
    if (rte_ring_sc_dequeue(ring_, &p) != 0) return nullptr;
    NANOPU_TSAN_ACQUIRE(p);
    return static_cast<rte_mbuf*>(p);
  }
  [[nodiscard]] unsigned pop_burst(rte_mbuf** ms, unsigned n) {
    const unsigned k = rte_ring_sc_dequeue_burst(ring_, reinterpret_cast<void**>(ms), n, nullptr);
    for (unsigned i = 0; i < k; ++i) NANOPU_TSAN_ACQUIRE(ms[i]);
    return k;
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
