// One output port of a switch, the one every switch of nanopu queues with:
// nanopu-switch's (tools/switch), the simulation's (model/network/sim_switch.h)
// and the analytic fabric's (model/queueing/virtual_fabric.h). A bounded
// data buffer and a control queue that always goes first: when a DATA
// packet does not fit, the switch trims it to its header and queues that
// as control (NDP, "Re-architecting datacenter networks and stacks for low
// latency and high performance", SIGCOMM'17 §3.1; nanoPU OSDI'21 §5), or,
// without trimming, drops it. With `priorities` the data buffer holds eight
// strict-priority queues by the IPv4 TOS (Homa, SIGCOMM'18 §3.4; docs/wire.md),
// a higher one always first. One home for the policy: a new one (ECN, say)
// is made once, and the figures and the simulator cannot disagree.
//
// Entry: what the switch queues (a frame, or the analytic model's packet);
// the queue keeps each one's bytes on the wire beside it. Who frees a
// dropped entry, and how an entry is trimmed, is the caller's.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <deque>
#include <limits>
#include <utility>

namespace nanopu::model {

struct OutputQueueParams {
  uint32_t data_bytes = 81 * 1024;                           // the data buffer (all levels)
  uint32_t control_bytes = std::numeric_limits<uint32_t>::max();  // the control queue
  bool trimming = true;                                      // false: tail drop
  bool priorities = false;                                   // eight data queues by TOS
};

template <typename Entry>
class OutputQueue {
 public:
  static constexpr int kLevels = 8;
  static constexpr int kControl = -1;  // Head::level of the control queue

  // What became of an entry offered: queued as it came; trimmed and queued
  // as control; trimmed but the control queue full (dropped); dropped for
  // want of room (tail drop); a control entry, or a trim that could not be
  // made, dropped.
  enum class Outcome { kQueued, kTrimmed, kTrimmedDropped, kTailDropped, kControlDropped };
  [[nodiscard]] static bool trimmed(Outcome o) { return o == Outcome::kTrimmed || o == Outcome::kTrimmedDropped; }
  [[nodiscard]] static bool control_dropped(Outcome o) {
    return o == Outcome::kTrimmedDropped || o == Outcome::kControlDropped;
  }

  explicit OutputQueue(const OutputQueueParams& p = {}) : p_(p) {}

  // A whole DATA entry of `bytes` at IPv4 TOS `tos`: into its data queue if
  // the buffer has room; else trimmed — trim(entry, &bytes) makes it its
  // header alone and returns false if it could not — into the control
  // queue, or (no trimming) dropped. drop(entry) frees what is not kept.
  template <typename Trim, typename Drop>
  Outcome offer_data(Entry e, uint32_t bytes, uint8_t tos, Trim&& trim, Drop&& drop) {
    if (data_bytes_ + bytes <= p_.data_bytes) {
      data_[p_.priorities ? tos % kLevels : 0].push_back({std::move(e), bytes});
      data_bytes_ += bytes;
      return Outcome::kQueued;
    }
    if (!p_.trimming) {
      drop(e);
      return Outcome::kTailDropped;
    }
    if (!trim(e, &bytes)) return Outcome::kControlDropped;  // (trim freed it: no room for the copy)
    return offer_control(std::move(e), bytes, drop) == Outcome::kQueued ? Outcome::kTrimmed
                                                                         : Outcome::kTrimmedDropped;
  }
  // A control entry (ACK, NACK, PULL, GRANT, a trimmed header): queued
  // unless the control queue is full (then dropped).
  template <typename Drop>
  Outcome offer_control(Entry e, uint32_t bytes, Drop&& drop) {
    if (control_bytes_ + bytes > p_.control_bytes) {
      drop(e);
      return Outcome::kControlDropped;
    }
    control_.push_back({std::move(e), bytes});
    control_bytes_ += bytes;
    return Outcome::kQueued;
  }

  // The entry that leaves next: the control queue's head, then the highest
  // data queue's — among heads that eligible(entry) lets go now (a
  // simulation's frame may not have crossed the switch yet). level:
  // kControl or the data queue's; entry null: none may go.
  struct Head {
    Entry* entry = nullptr;
    uint32_t bytes = 0;
    int level = kControl;
  };
  template <typename Eligible>
  [[nodiscard]] Head next(Eligible&& eligible) {
    if (!control_.empty() && eligible(control_.front().e)) return {&control_.front().e, control_.front().bytes, kControl};
    for (int level = kLevels - 1; level >= 0; --level) {
      auto& q = data_[level];
      if (!q.empty() && eligible(q.front().e)) return {&q.front().e, q.front().bytes, level};
    }
    return {};
  }
  [[nodiscard]] Head next() {
    return next([](const Entry&) { return true; });
  }
  // The least key(head) over every queue's head (a simulation: when the
  // first of them may leave); `none` when nothing is queued.
  template <typename Key, typename T>
  [[nodiscard]] T least_head(Key&& key, T none) const {
    T least = none;
    if (!control_.empty()) least = std::min<T>(least, key(control_.front().e));
    for (const auto& q : data_)
      if (!q.empty()) least = std::min<T>(least, key(q.front().e));
    return least;
  }
  // Takes the head next() named off its queue.
  Entry pop(const Head& h) {
    auto& q = h.level == kControl ? control_ : data_[h.level];
    Entry e = std::move(q.front().e);
    (h.level == kControl ? control_bytes_ : data_bytes_) -= q.front().bytes;
    q.pop_front();
    return e;
  }
  // Everything queued, each to `drop` (a port gone, the end of a run).
  template <typename Drop>
  uint64_t clear(Drop&& drop) {
    uint64_t n = 0;
    for (auto* q : all_queues())
      for (Slot& s : *q) {
        drop(s.e);
        ++n;
      }
    for (auto* q : all_queues()) q->clear();
    data_bytes_ = control_bytes_ = 0;
    return n;
  }

  [[nodiscard]] bool empty() const {
    if (!control_.empty()) return false;
    for (const auto& q : data_)
      if (!q.empty()) return false;
    return true;
  }
  [[nodiscard]] uint32_t data_bytes() const { return data_bytes_; }
  [[nodiscard]] uint32_t control_bytes() const { return control_bytes_; }

 private:
  struct Slot {
    Entry e;
    uint32_t bytes;
  };
  [[nodiscard]] auto all_queues() {
    std::deque<Slot>* qs[kLevels + 1];
    qs[0] = &control_;
    for (int i = 0; i < kLevels; ++i) qs[i + 1] = &data_[i];
    return std::to_array(qs);
  }

  OutputQueueParams p_;
  std::deque<Slot> control_;
  std::deque<Slot> data_[kLevels];  // [0] only without priorities
  uint32_t data_bytes_ = 0, control_bytes_ = 0;
};

}  // namespace nanopu::model
