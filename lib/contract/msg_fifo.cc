#include "lib/contract/msg_fifo.h"

#include <rte_errno.h>

#include "absl/strings/str_cat.h"
#include "lib/contract/inline_msg.h"

namespace nanopu {

MsgFifo& MsgFifo::operator=(MsgFifo&& o) noexcept {
  if (this != &o) {
    drain();
    rte_ring_free(ring_);
    ring_ = o.ring_;
    o.ring_ = nullptr;
  }
  return *this;
}

MsgFifo::~MsgFifo() {
  drain();
  rte_ring_free(ring_);
}

absl::StatusOr<MsgFifo> MsgFifo::create(const std::string& name, uint32_t capacity,
                                        uint32_t producers) {
  // RING_F_EXACT_SZ: exactly `capacity` usable slots.
  rte_ring* r =
      rte_ring_create(name.c_str(), capacity, SOCKET_ID_ANY,
                      (producers > 1 ? 0u : RING_F_SP_ENQ) | RING_F_SC_DEQ | RING_F_EXACT_SZ);
  if (r == nullptr)
    return absl::ResourceExhaustedError(
        absl::StrCat("rte_ring_create(", name, ", ", capacity, "): ", rte_strerror(rte_errno)));
  return MsgFifo(r);
}

void MsgFifo::drain() {
  if (ring_ == nullptr) return;
  while (rte_mbuf* m = pop()) free_fifo_entry(m);  // an inline slot is not a buffer
}

}  // namespace nanopu
