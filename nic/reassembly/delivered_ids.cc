#include "nic/reassembly/delivered_ids.h"

#include <algorithm>
#include <cassert>
#include <cstring>

#include "nic/reassembly/reassembly_buffer.h"

namespace nanopu {
namespace {

// Serial-number arithmetic on 16-bit ids (RFC 1982): how far `id` is ahead
// of `highest` (1 .. 2^15 - 1), or 0 when it is not ahead.
[[nodiscard]] uint16_t ahead_by(uint16_t id, uint16_t highest) {
  const auto d = static_cast<uint16_t>(id - highest);
  return d < 0x8000 ? d : 0;
}
// How far `id` is behind or at `highest` (0 .. 2^15), when it is not ahead.
[[nodiscard]] uint32_t behind_by(uint16_t id, uint16_t highest) {
  return static_cast<uint16_t>(highest - id);
}

}  // namespace

DeliveredIds::DeliveredIds(uint32_t remembered, uint32_t max_senders, uint64_t horizon,
                           uint64_t* senders_forgotten, uint64_t* beyond_memory)
    : horizon_(horizon),
      max_senders_(max_senders),
      senders_forgotten_(senders_forgotten),
      beyond_memory_(beyond_memory),
      completed_ring_(remembered, 0) {
  windows_.reserve(max_senders);
  window_index_.reserve(max_senders);
  completed_.reserve(remembered);
}

uint8_t DeliveredIds::tag_of(const DeliveredId& id) {
  const uint32_t x = uint32_t{id.buf_ptr} * 0x9E37u ^ uint32_t{id.src_context} * 0x85EBu ^ id.msg_len;
  const auto t = static_cast<uint8_t>(x ^ x >> 8 ^ x >> 16);
  return t != 0 ? t : 1;
}

const DeliveredIds::Window* DeliveredIds::find(uint32_t src_ip, uint32_t epoch) const {
  if (last_window_ < windows_.size()) {
    const Window& w = windows_[last_window_];
    if (w.src_ip == src_ip && w.epoch == epoch) return &w;
  }
  auto it = window_index_.find(key_of(src_ip, epoch));
  if (it == window_index_.end()) return nullptr;
  last_window_ = it->second;
  return &windows_[it->second];
}

DeliveredIds::Window& DeliveredIds::find_or_take(uint32_t src_ip, uint32_t epoch) {
  if (const Window* w = find(src_ip, epoch); w != nullptr) return windows_[last_window_];
  uint32_t i;
  if (windows_.size() < max_senders_) {
    // Allocated once per sender incarnation, not per message.
    i = static_cast<uint32_t>(windows_.size());
    windows_.emplace_back().tag = std::make_unique<uint8_t[]>(kWindowIds);
  } else {
    // Full: forget the sender heard from least recently (a scan, only when
    // a new sender arrives).
    i = 0;
    for (uint32_t j = 1; j < windows_.size(); ++j)
      if (windows_[j].last_tsc < windows_[i].last_tsc) i = j;
    window_index_.erase(key_of(windows_[i].src_ip, windows_[i].epoch));
    if (senders_forgotten_ != nullptr) ++*senders_forgotten_;
  }
  Window& w = windows_[i];
  w.src_ip = src_ip;
  w.epoch = epoch;
  w.last_tsc = 0;  // reset by the caller: never delivered yet
  window_index_.emplace(key_of(src_ip, epoch), i);
  last_window_ = i;
  return w;
}

void DeliveredIds::reset(Window& w, uint16_t highest) const {
  std::memset(w.tag.get(), 0, kWindowIds);
  w.highest = highest;
}

void DeliveredIds::advance(Window& w, uint16_t to) const {
  const uint16_t d = ahead_by(to, w.highest);
  assert(d != 0);
  if (d >= kWindowIds) {
    std::memset(w.tag.get(), 0, kWindowIds);
  } else {
    // Ids highest+1 .. to enter the window undelivered.
    const uint32_t start = (uint32_t{w.highest} + 1) % kWindowIds;
    const uint32_t first = std::min<uint32_t>(d, kWindowIds - start);
    std::memset(w.tag.get() + start, 0, first);
    std::memset(w.tag.get(), 0, d - first);
  }
  w.highest = to;
}

DeliveredIds::Window* DeliveredIds::live_window(const DeliveredId& id, uint64_t now) {
  if (find(id.src_ip, id.epoch) == nullptr) return nullptr;
  Window* w = &windows_[last_window_];
  return w->last_tsc != 0 && now - w->last_tsc <= horizon_ ? w : nullptr;
}

bool DeliveredIds::seen(const DeliveredId& id, uint64_t now, bool* beyond) {
  if (!id.ordered_ids()) return remembered_in_map(id, now);
  Window* w = live_window(id, now);
  if (w == nullptr) return false;
  if (ahead_by(id.tx_msg_id, w->highest) != 0) return false;
  // Behind the window: only a delivery that came in behind it is known,
  // in the map (remember()); one that fell out of it is forgotten.
  if (behind_by(id.tx_msg_id, w->highest) >= kWindowIds) {
    if (remembered_in_map(id, now)) return true;
    if (beyond_memory_ != nullptr) ++*beyond_memory_;
    if (beyond != nullptr) *beyond = true;
    return false;
  }
  if (w->tag[id.tx_msg_id % kWindowIds] != tag_of(id)) return false;
  renew(*w, now);  // heard from, still retransmitting
  return true;
}

void DeliveredIds::heard_from(const DeliveredId& id, uint64_t now) {
  if (!id.ordered_ids()) return;
  if (Window* w = live_window(id, now); w != nullptr) renew(*w, now);
}

void DeliveredIds::remember(const DeliveredId& id, uint64_t now) {
  if (!id.ordered_ids()) {
    remember_in_map(id, now);
    return;
  }
  Window& w = find_or_take(id.src_ip, id.epoch);
  if (w.last_tsc == 0 || now - w.last_tsc > horizon_) reset(w, id.tx_msg_id);
  renew(w, now);
  if (const uint16_t ahead = ahead_by(id.tx_msg_id, w.highest); ahead == 1) {
    w.highest = id.tx_msg_id;  // the next id, the common case: its byte alone, written below
  } else if (ahead != 0) {
    advance(w, id.tx_msg_id);
  } else if (behind_by(id.tx_msg_id, w.highest) >= kWindowIds) {
    // Completed after kWindowIds younger messages (Homa's SRPT can hold a
    // long message back that long): too far behind for the window, so kept
    // in the bounded map, or a late copy of it would be delivered again.
    remember_in_map(id, now);
    return;
  }
  w.tag[id.tx_msg_id % kWindowIds] = tag_of(id);
}

bool DeliveredIds::remembered_in_map(const DeliveredId& id, uint64_t now) {
  auto it = completed_.find(ReassemblyBuffer::key_of(id.src_ip, id.buf_ptr, id.tx_msg_id));
  if (it == completed_.end()) return false;
  Completed& c = it->second;
  if (c.src_context != id.src_context || c.msg_len != id.msg_len || c.epoch != id.epoch ||
      now - c.tsc > horizon_)
    return false;
  c.tsc = now;  // renewed, as a window is (seen())
  return true;
}

void DeliveredIds::remember_in_map(const DeliveredId& id, uint64_t now) {
  if (completed_ring_.empty()) return;
  const uint64_t key = ReassemblyBuffer::key_of(id.src_ip, id.buf_ptr, id.tx_msg_id);
  uint64_t& victim = completed_ring_[completed_next_];
  if (victim != 0) completed_.erase(victim);
  victim = key;
  completed_[key] = Completed{id.src_context, id.msg_len, id.epoch, now};
  completed_next_ = (completed_next_ + 1) % completed_ring_.size();
}

}  // namespace nanopu
