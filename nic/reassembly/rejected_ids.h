// The receiver's memory of the messages it rejected for load (a context
// over the queue its SLO allows: docs/wire.md, "Rejected for load"). A
// rejection is final: its sender gives the message up and its caller is
// told the request was not done. A copy its sender retransmitted before
// the NACK|REJECT reached it must then be rejected too, never admitted once
// the queue has room — else the one request is both rejected and served.
// Copies come within the sender's retransmission timeouts, so a rejection
// is kept for `horizon` ticks after it or its last copy (the receiver's
// delivered-id horizon, which outlasts any sender's retransmissions), and
// at most kCapacity of them, oldest forgotten first; one kept no longer
// cannot turn down a later message that reuses its (slot, id).
// Hand-written: a bounded, expiring set is not something Abseil or DPDK ships.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "nic/reassembly/delivered_ids.h"

namespace nanopu {

class RejectedIds {
 public:
  static constexpr size_t kCapacity = 16384;

  explicit RejectedIds(uint64_t horizon) : horizon_(horizon) {}

  [[nodiscard]] bool empty() const { return at_.empty(); }
  // Whether id was rejected within the horizon; a hit renews it (its
  // sender is still retransmitting).
  [[nodiscard]] bool contains(const DeliveredId& id, uint64_t now) {
    auto it = at_.find(key_of(id));
    if (it == at_.end() || now - it->second > horizon_) return false;
    it->second = now;
    return true;
  }
  // Remembers a rejection; false if id was already kept (a copy: renewed).
  bool remember(const DeliveredId& id, uint64_t now) {
    const Key k = key_of(id);
    auto [it, inserted] = at_.try_emplace(k, now);
    it->second = now;
    if (!inserted) return false;
    if (ring_.size() < kCapacity) {
      ring_.push_back(k);
      return true;
    }
    at_.erase(ring_[next_]);  // the oldest rejection
    ring_[next_] = k;
    next_ = (next_ + 1) % kCapacity;
    return true;
  }

 private:
  using Key = std::pair<uint64_t, uint64_t>;
  [[nodiscard]] static Key key_of(const DeliveredId& id) {
    return {uint64_t{id.src_ip} << 32 | id.epoch,
            uint64_t{id.buf_ptr} << 48 | uint64_t{id.tx_msg_id} << 32 | uint64_t{id.src_context} << 16 | id.msg_len};
  }

  uint64_t horizon_;
  absl::flat_hash_map<Key, uint64_t> at_;  // rejection -> when last rejected
  std::vector<Key> ring_;                  // in the order rejected
  size_t next_ = 0;                        // the oldest, once the ring is full
};

}  // namespace nanopu
