#include "lib/contract/notice_fifo.h"

#include <rte_errno.h>

#include "absl/strings/str_cat.h"

namespace nanopu {

absl::StatusOr<NoticeFifo> NoticeFifo::create(const std::string& name, uint32_t capacity,
                                              uint32_t producers) {
  rte_ring* r =
      rte_ring_create_elem(name.c_str(), sizeof(TxFailure), capacity, SOCKET_ID_ANY,
                           (producers > 1 ? 0u : RING_F_SP_ENQ) | RING_F_SC_DEQ | RING_F_EXACT_SZ);
  if (r == nullptr)
    return absl::ResourceExhaustedError(
        absl::StrCat("rte_ring_create_elem(", name, ", ", capacity, "): ", rte_strerror(rte_errno)));
  return NoticeFifo(r);
}

}  // namespace nanopu
