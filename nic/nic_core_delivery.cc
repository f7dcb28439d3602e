// The NIC core's delivery (nanoPU OSDI'21 §3.2): a reassembled message for
// a context goes to a thread's FIFO, the core chosen by --core_select
// (JBSQ(n) by default: at most n of the context's messages outstanding per
// core), or waits in the context's queue until a core returns a credit; a
// context with one binding has no core to choose and goes straight to its
// thread's FIFO, as deep as the FIFO holds. A sPIN handler may take the
// message first (nic/spin).
#include <rte_mbuf.h>

#include <algorithm>

#include "lib/contract/message.h"
#include "nanopu/app_header.h"
#include "nic/nic_core.h"
#include "nic/pipeline/tester_stamp.h"

namespace nanopu {

uint32_t NicCore::single_binding_bound(const NicParams& p) {
  // A context with one binding has no core to choose: its messages would
  // only wait in its global queue for credits (one poll in, one poll out,
  // every message of a deep window: issue 69). Live, they go straight to
  // the FIFO, as many as it surely holds: its depth, less what the other
  // NIC cores may hand over in the same instant (docs/design.md §7; at
  // least jbsq_n, which Config::validate keeps within it). A simulation
  // keeps a burst, as the figures were made, never more than that room.
  if (p.fifo_messages == 0) return kBurst;  // no FIFO depth given (a unit's NIC)
  const uint32_t others = p.nic_cores > 0 ? p.nic_cores - 1 : 0;
  const uint32_t room = p.fifo_messages > others ? p.fifo_messages - others : 1;
  return clock::is_virtual() ? std::min<uint32_t>(kBurst, room) : room;
}

ThreadFifos* NicCore::choose(ContextEntry* e, uint64_t hash, bool* no_thread) const {
  if (params_.workers == 1 && params_.core_select == CoreSelectPolicy::kJbsq) {
    // One worker core: no choice, only JBSQ's bound (a whole RPC's most
    // common delivery; the same answer as select() below).
    ThreadFifos* t = e->threads[0].load(std::memory_order_acquire);
    *no_thread = t == nullptr;
    return t != nullptr && selector_.admits_single(outstanding_of(t)) ? t : nullptr;
  }
  uint32_t outstanding[kMaxWorkers];
  bool bound[kMaxWorkers];
  ThreadFifos* fifos[kMaxWorkers];
  const size_t w = params_.workers;
  bool any = false;
  for (size_t i = 0; i < w; ++i) {
    fifos[i] = e->threads[i].load(std::memory_order_acquire);
    bound[i] = fifos[i] != nullptr;
    outstanding[i] = bound[i] ? outstanding_of(fifos[i]) : 0;
    any |= bound[i];
  }
  *no_thread = !any;
  const int i = any ? selector_.select(outstanding, bound, w, hash, params_.local_worker)
                    : CoreSelector::kHold;
  return i == CoreSelector::kHold ? nullptr : fifos[i];
}

bool NicCore::push_to(ThreadFifos* t, rte_mbuf* msg, ContextEntry* e) {
  e->packets -= msg->nb_segs;  // out of the NIC's custody either way
  ThreadFifos::NicSide& s = side(t);
  if (s.staged_n == ThreadFifos::kStagedMax) push_staged(t);
  if (s.staged_n == 0) staged_.push_back(t);
  s.staged[s.staged_n++] = msg;
  s.count_delivered(1);
  ++counters_.rx_msgs_delivered;
  return true;
}

bool NicCore::deliver(rte_mbuf* msg, ContextEntry* dst) {
  if (spin_ != nullptr && spin_->take(msg, dst)) [[unlikely]]
    return true;
  return deliver_to_host(msg, dst);
}

bool NicCore::deliver_to_host(rte_mbuf* msg, ContextEntry* dst) {
  if (dst->context == params_.stamp_context) [[unlikely]] {
    const MsgMeta* meta = msg_meta(msg);
    (void)stamp_rx(msg, AppHeader::from_word(meta->app_header).len, tester_cycle(meta->nic_tsc, tsc_hz_));
  }
  // FIFO order per context: while older messages wait, newer ones queue too.
  if (dst->held.empty()) {
    bool no_thread = false;
    // RSS: the source's hash; random: a fresh draw per message (splitmix64
    // of a count: the same run, the same draws); JBSQ and static: none.
    uint64_t hash = 0;
    if (params_.core_select == CoreSelectPolicy::kRandom) {
      hash = draw_core_hash();
    } else if (params_.core_select == CoreSelectPolicy::kRss) {
      const AppHeader src = AppHeader::from_word(msg_meta(msg)->app_header);
      hash = flow_hash(src.ip, src.context);
    }
    ThreadFifos* t = choose(dst, hash, &no_thread);
    if (no_thread) {
      ++counters_.rx_drop_no_thread;
      dst->packets -= msg->nb_segs;
      rte_pktmbuf_free(msg);
      return false;
    }
    if (t != nullptr) return push_to(t, msg, dst);
  }
  if (!dst->held.push(msg)) {  // cannot happen for admitted messages (buffer_partition.h)
    ++counters_.rx_drop_queue_full;
    dst->packets -= msg->nb_segs;
    rte_pktmbuf_free(msg);
    return false;
  }
  ++counters_.rx_msgs_queued;
  if (!dst->pending) {
    dst->pending = true;
    pending_.push_back(dst);
  }
  return true;
}

unsigned NicCore::service_pending() {
  // nanoPU §3.2: when a core returns a credit (its thread's done counter
  // moves), forward the context's next message to it. Only JBSQ holds
  // messages, and its choice does not depend on the message.
  unsigned moved = 0;
  for (size_t k = 0; k < pending_.size();) {
    ContextEntry* e = pending_[k];
    while (!e->held.empty()) {
      bool no_thread = false;
      ThreadFifos* t = choose(e, 0, &no_thread);
      if (no_thread) {
        counters_.rx_drop_no_thread += e->held.count();
        while (rte_mbuf* m = e->held.pop()) {
          e->packets -= m->nb_segs;
          rte_pktmbuf_free(m);
        }
        break;
      }
      if (t == nullptr) break;  // every core at n: wait for a credit
      (void)push_to(t, e->held.pop(), e);
      ++moved;
    }
    if (e->held.empty()) {
      e->pending = false;
      pending_[k] = pending_.back();
      pending_.pop_back();
    } else {
      ++k;
    }
  }
  return moved;
}

}  // namespace nanopu
