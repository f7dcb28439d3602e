// The receiver's memory of the messages it rejected for load (a context
// over the queue its SLO allows: docs/wire.md, "Rejected for load"). A
// rejection is final: its sender gives the message up and its caller is
// told the request was not done. A copy its sender retransmitted before
// the NACK|REJECT reached it must then be rejected too, never admitted once
// the queue has room — else the one request is both rejected and served.
// Copies come at most a retransmission timeout after the first, so the
// last kCapacity rejections are enough; an older one is forgotten (the
// one way a late copy could still be admitted). Hand-written: a bounded
// set with oldest-first eviction is not something Abseil or DPDK ships.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "nic/reassembly/delivered_ids.h"

namespace nanopu {

class RejectedIds {
 public:
  static constexpr size_t kCapacity = 16384;

  [[nodiscard]] bool empty() const { return set_.empty(); }
  [[nodiscard]] bool contains(const DeliveredId& id) const { return set_.contains(key_of(id)); }
  void remember(const DeliveredId& id) {
    const Key k = key_of(id);
    if (!set_.insert(k).second) return;
    if (ring_.size() < kCapacity) {
      ring_.push_back(k);
      return;
    }
    set_.erase(ring_[next_]);  // the oldest rejection
    ring_[next_] = k;
    next_ = (next_ + 1) % kCapacity;
  }

 private:
  using Key = std::pair<uint64_t, uint64_t>;
  [[nodiscard]] static Key key_of(const DeliveredId& id) {
    return {uint64_t{id.src_ip} << 32 | id.epoch,
            uint64_t{id.buf_ptr} << 48 | uint64_t{id.tx_msg_id} << 32 | uint64_t{id.src_context} << 16 | id.msg_len};
  }

  absl::flat_hash_set<Key> set_;
  std::vector<Key> ring_;  // in the order rejected
  size_t next_ = 0;        // the oldest, once the ring is full
};

}  // namespace nanopu
