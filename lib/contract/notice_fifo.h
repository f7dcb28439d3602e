// The NIC's notices to a thread about its own messages (the NIC↔worker
// contract, TX side): each message the transport gives up or a restarted
// peer refuses is named here by its tag (nanopu/tx_failure.h), so a thread
// knows which of its messages failed, not only how many. One producer (the
// NIC core; each of several, docs/design.md §7) and one consumer (the
// thread), as the message FIFOs; a notice
// is 24 bytes copied into the ring, not a pointer.
#pragma once

#include <rte_ring.h>
#include <rte_ring_elem.h>

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "nanopu/tx_failure.h"

namespace nanopu {

class NoticeFifo {
 public:
  NoticeFifo() = default;
  NoticeFifo(const NoticeFifo&) = delete;
  NoticeFifo& operator=(const NoticeFifo&) = delete;
  NoticeFifo(NoticeFifo&& o) noexcept : ring_(o.ring_) { o.ring_ = nullptr; }
  NoticeFifo& operator=(NoticeFifo&& o) noexcept {
    if (this != &o) {
      rte_ring_free(ring_);
      ring_ = o.ring_;
      o.ring_ = nullptr;
    }
    return *this;
  }
  ~NoticeFifo() { rte_ring_free(ring_); }

  // producers > 1: several NIC cores push.
  [[nodiscard]] static absl::StatusOr<NoticeFifo> create(const std::string& name, uint32_t capacity,
                                                         uint32_t producers = 1);

  // False when full (the notice is then only counted: Thread::tx_failures()).
  [[nodiscard]] bool push(const TxFailure& f) {
    TxFailure copy = f;  // DPDK 22.11 takes a non-const pointer
    return ring_ != nullptr && rte_ring_enqueue_elem(ring_, &copy, sizeof(TxFailure)) == 0;
  }
  [[nodiscard]] bool pop(TxFailure* f) {
    return ring_ != nullptr && rte_ring_sc_dequeue_elem(ring_, f, sizeof(TxFailure)) == 0;
  }
  [[nodiscard]] bool empty() const { return ring_ == nullptr || rte_ring_empty(ring_); }

 private:
  explicit NoticeFifo(rte_ring* r) : ring_(r) {}
  rte_ring* ring_ = nullptr;
};

static_assert(sizeof(TxFailure) % 4 == 0, "rte_ring elements are multiples of 4 bytes");

}  // namespace nanopu
