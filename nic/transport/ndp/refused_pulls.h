// One-packet messages the receiver refused for want of room (its context's
// buffer share used up, or no reassembly slot), remembered so that the receiver
// asks for each again — a NACK|PULL, which its sender answers at once —
// when its context can take it, instead of leaving the resend to the
// sender's backed-off timer. NDP is receiver-driven (nanoPU tail-latency
// version §3.1: the receiver's PULLs pace what comes in); without this, a
// client that fell behind reading its replies got each of them again only
// a timeout later (docs/wire.md, "NDP behaviour"). One packet only: a
// NACK|PULL names one packet, and of a longer message's first window,
// refused whole, it would bring back only that one (the rest on the timer)
// while the message held a slot for all of them.
//
// What was asked for and has not come yet counts against its context's
// room (a freed buffer brings one message back, not every one waiting:
// asked all at once, most were refused again). Bounded (kMax entries): one
// refused while it is full, or left waiting longer than the sender's
// longest timeout, is left to its sender's timer, as before.
#pragma once

#include <cstdint>
#include <vector>

#include "lib/contract/context_table.h"
#include "lib/wire/frame.h"

namespace nanopu {

class RefusedPulls {
 public:
  static constexpr size_t kMax = 64;

  struct Entry {
    uint32_t src_ip = 0;
    wire::NdpHeader nack_pull;  // the control packet to send (contexts swapped, ids echoed)
    ContextEntry* dst = nullptr;
    uint64_t at = 0;            // when it was (last) refused
    uint64_t asked_at = 0;      // when a NACK|PULL went out for it
    bool asked = false;         // one did, and it has not come back
  };

  // Remembers a refused message, in the order of first refusal (once: a
  // resend refused again keeps its place and waits again). False when full
  // (its sender's timer resends it).
  bool refused(const Entry& e) {
    if (Entry* x = find(e.src_ip, e.nack_pull.tx_msg_id, e.nack_pull.buf_ptr)) {
      *x = e;
      return true;
    }
    if (entries_.size() >= kMax) return false;
    entries_.push_back(e);
    return true;
  }
  // A packet of one of them came and was taken: forgotten.
  void arrived(uint32_t src_ip, uint16_t tx_msg_id, uint16_t buf_ptr) {
    if (Entry* x = find(src_ip, tx_msg_id, buf_ptr)) entries_.erase(entries_.begin() + (x - entries_.data()));
  }
  [[nodiscard]] bool empty() const { return entries_.empty(); }

  // Sends, oldest first, the NACK|PULL of each waiting message whose
  // context has room for it beside what it was already asked for
  // (admits(dst, pending): `pending` one-packet messages asked for and on
  // their way), while send(entry) finds credit to pay.
  // One asked for and not back within `ask_expiry` (its NACK|PULL or the
  // resend lost) waits again; one refused longer than `wait_expiry` ago is
  // forgotten (its sender's timer has resent it by then, or it gave up). Returns how many
  // were asked for.
  template <typename Admits, typename Send>
  uint32_t ask_again(uint64_t now, uint64_t ask_expiry, uint64_t wait_expiry, const Admits& admits,
                     const Send& send) {
    size_t keep = 0;
    for (size_t i = 0; i < entries_.size(); ++i) {
      Entry& e = entries_[i];
      if (e.asked && now - e.asked_at > ask_expiry) e.asked = false;
      if (now - e.at <= wait_expiry) entries_[keep++] = e;
    }
    entries_.resize(keep);
    uint32_t asked = 0;
    contexts_.clear();  // each context's pending room, counted once this tick
    for (Entry& e : entries_) {
      if (e.asked) continue;
      Context& c = context_of(e.dst);
      if (c.full || !admits(e.dst, c.pending)) {
        c.full = true;  // its later messages wait too (oldest first)
        continue;
      }
      if (!send(e)) break;  // the pacer's bucket is empty: the rest wait for the next tick
      e.asked = true;
      e.asked_at = now;
      ++c.pending;
      ++asked;
    }
    return asked;
  }

 private:
  Entry* find(uint32_t src_ip, uint16_t tx_msg_id, uint16_t buf_ptr) {
    for (Entry& x : entries_)
      if (x.src_ip == src_ip && x.nack_pull.tx_msg_id == tx_msg_id && x.nack_pull.buf_ptr == buf_ptr)
        return &x;
    return nullptr;
  }
  struct Context {
    const ContextEntry* dst = nullptr;
    uint32_t pending = 0;  // its messages asked for and on their way
    bool full = false;
  };
  Context& context_of(const ContextEntry* dst) {
    for (Context& c : contexts_)
      if (c.dst == dst) return c;
    Context c{dst, 0, false};
    for (const Entry& x : entries_) c.pending += x.asked && x.dst == dst;
    contexts_.push_back(c);
    return contexts_.back();
  }

  std::vector<Entry> entries_;
  std::vector<Context> contexts_;  // ask_again()'s, kept for its capacity
};

}  // namespace nanopu
