// The NIC core's side of the threads' FIFOs (lib/contract/thread_fifos.h):
// messages staged for a thread and pushed into its RX FIFO once a poll, small
// ones into its inline slots (lib/contract/inline_msg.h: the register path
// of nanoPU OSDI'21 §2.1), and messages taken from its TX FIFO, an inline
// one framed into a buffer of this core's pool.
#include <rte_mbuf.h>

#include <algorithm>
#include <cstring>

#include "lib/base/nic_buggify.h"
#include "lib/base/tsan_handoff.h"
#include "lib/contract/clock.h"
#include "lib/contract/inline_msg.h"
#include "lib/contract/message.h"
#include "lib/contract/tx_message.h"
#include "nanopu/app_header.h"
#include "nic/nic_core.h"

namespace nanopu {

rte_mbuf* NicCore::frame_inline(rte_mbuf* entry, rte_mbuf* m) {
  const InlineTxMsg& slot = *inline_tx_of(entry);
  const uint16_t len = AppHeader::from_word(slot.app_header).len;
  (void)rte_pktmbuf_append(m, static_cast<uint16_t>(wire::kFrameHeaderBytes + len));
  std::memcpy(tx_segment_payload(m), slot.payload, len);
  MsgMeta* meta = msg_meta(m);
  *meta = MsgMeta{};
  meta->app_header = slot.app_header;
  meta->src_context = slot.src_context;
  meta->core_time = slot.core_time;
  meta->run = slot.run;
  meta->tag = slot.tag;
  meta->ready_tsc = slot.ready_tsc;
  NANOPU_TSAN_RELEASE(const_cast<InlineTxMsg*>(&slot));  // read: the thread may write it again (its ring's order, unseen by TSan)
  return m;
}

unsigned NicCore::take_tx(size_t ti, rte_mbuf** msgs, unsigned room) {
  if (clock::is_virtual()) [[unlikely]]
    return take_tx_when_ready(ti, msgs, room);
  // Entries a burst ago that found no buffer go first, in order.
  std::vector<rte_mbuf*>& held = held_tx_[ti];
  unsigned n = 0;
  if (held.empty()) {
    n = tx_fifo(threads_[ti]).pop_burst(msgs, room);
  } else {
    n = std::min<unsigned>(room, static_cast<unsigned>(held.size()));
    std::copy(held.begin(), held.begin() + n, msgs);
    held.erase(held.begin(), held.begin() + n);
  }
  if (threads_[ti]->tx_inline == nullptr) return n;
  // Inline entries (inline_msg.h) become packets in buffers of this core's
  // pool, all or none: with none to be had the burst waits for the next poll.
  unsigned inline_n = 0;
  for (unsigned i = 0; i < n; ++i) inline_n += is_inline(msgs[i]);
  if (inline_n == 0) return n;
  rte_mbuf* bufs[kBurst];
  if (rte_pktmbuf_alloc_bulk(pool_, bufs, inline_n) != 0) {
    held.insert(held.begin(), msgs, msgs + n);
    ++counters_.tx_inline_no_mbuf;
    return 0;
  }
  for (unsigned i = 0, b = 0; i < n; ++i)
    if (is_inline(msgs[i])) msgs[i] = frame_inline(msgs[i], bufs[b++]);
  counters_.tx_msgs_inline += inline_n;
  return n;
}

unsigned NicCore::take_tx_when_ready(size_t ti, rte_mbuf** msgs, unsigned room) {
  // A simulation polls the worker cores on clocks of their own: a message
  // a core finished ahead of this one's clock leaves when its work is done.
  unsigned k = 0;
  while (k < room) {
    rte_mbuf* m = not_ready_[ti] != nullptr ? not_ready_[ti] : tx_fifo(threads_[ti]).pop();
    not_ready_[ti] = nullptr;
    if (m == nullptr) break;
    if (entry_ready_tsc(m) > now_) {
      not_ready_[ti] = m;
      break;
    }
    if (is_inline(m)) {
      rte_mbuf* b = rte_pktmbuf_alloc(pool_);
      if (b == nullptr) {
        not_ready_[ti] = m;  // taken again next poll
        ++counters_.tx_inline_no_mbuf;
        break;
      }
      m = frame_inline(m, b);
      ++counters_.tx_msgs_inline;
    }
    msgs[k++] = m;
  }
  return k;
}

uint64_t NicCore::next_tx_ready() const {
  uint64_t next = UINT64_MAX;
  for (const rte_mbuf* m : not_ready_)
    if (m != nullptr) next = std::min(next, entry_ready_tsc(m));
  return next;
}

void NicCore::stage_inline(ThreadFifos* t, ThreadFifos::NicSide& s) {
  // Only as many as the FIFO surely takes (one producer: its room only
  // grows meanwhile), so none converted is left over.
  const uint32_t k = std::min(s.staged_n, t->rx.free_count());
  const uint64_t done = done_this_poll(t);
  for (uint32_t i = 0; i < k; ++i) {
    rte_mbuf* m = s.staged[i];
    if (m->nb_segs != 1 || m->pkt_len > kInlineBytes) continue;
    const uint32_t j = s.next_slot;
    if (s.slot_owner[j] > done) break;  // its holder is not finished: slots go round in order
    InlineMsg& slot = t->rx_inline[j];
    const MsgMeta& meta = *msg_meta(m);
    slot.app_header = meta.app_header;
    slot.nic_tsc = meta.nic_tsc;
    slot.core_time = meta.core_time;
    slot.run = meta.run;
    std::memcpy(slot.payload, rte_pktmbuf_mtod(m, const void*), m->pkt_len);
    rte_pktmbuf_free(m);  // into this core's own mempool cache
    s.staged[i] = inline_entry(&slot);
    s.slot_owner[j] = s.pushed + i + 1;
    s.next_slot = j + 1 == t->rx_inline_slots ? 0 : j + 1;
    ++counters_.rx_msgs_inline;
  }
}

void NicCore::push_staged(ThreadFifos* t) {
  ThreadFifos::NicSide& s = side(t);
  const uint32_t n = s.staged_n;
  // Simulation only (lib/base/nic_buggify.h): a batch delivered out of
  // arrival order. The transport is message-oriented, not a byte stream
  // (nanoPU OSDI'21, "Low-latency, message-oriented transport protocols"):
  // two messages carry no order between them, and a service must not
  // assume the order they left in.
  if (n >= 2 && nic_buggify()) std::swap(s.staged[0], s.staged[n - 1]);
  if (t->rx_inline != nullptr && s.slot_owner != nullptr) stage_inline(t, s);
  const unsigned pushed = t->rx.push_burst(s.staged, n);
  s.pushed += pushed;
  if (pushed < n) [[unlikely]] {  // a full FIFO (RSS, static; JBSQ never overfills one)
    counters_.rx_drop_fifo_full += n - pushed;
    counters_.rx_msgs_delivered -= n - pushed;
    s.count_delivered(-static_cast<int64_t>(n - pushed));
    rte_pktmbuf_free_bulk(s.staged + pushed, n - pushed);
  }
  s.staged_n = 0;
  if (pushed == 0) return;
  ++deliveries_;
  if (params_.adaptive_poll) to_wake_ |= uint64_t{1} << t->worker;
  t->signals->on_delivery(t->priority.load(std::memory_order_relaxed), now_);
}

void NicCore::push_all_staged() {
  for (ThreadFifos* t : staged_)
    if (side(t).staged_n != 0) push_staged(t);
  staged_.clear();
}

}  // namespace nanopu
