// The pair of FIFOs that stand in for one thread's netRX/netTX registers
// (nanoPU §2.1): the NIC core is the only producer of rx and the only consumer
// of tx (with several NIC cores, each pushes into rx and drains a tx of its
// own); the thread's worker core is the other side of each. The credit
// counters give JBSQ its per-core outstanding count (nanoPU §3.2).
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>

#include "lib/contract/clock.h"
#include "lib/contract/core_signals.h"
#include "lib/contract/inline_msg.h"
#include "lib/contract/msg_fifo.h"
#include "lib/contract/nic_cores.h"
#include "lib/contract/notice_fifo.h"
#include "lib/contract/wakeup.h"

namespace nanopu {

struct ThreadFifos {
  static constexpr uint32_t kStagedMax = 32;
  // What one NIC core keeps of this thread, on a line of its own: only that
  // core writes it; JBSQ reads every core's `delivered`.
  struct alignas(64) NicSide {
    // Messages core selection on this NIC core gave the thread (pushed into
    // rx, or staged to be).
    std::atomic<uint64_t> delivered{0};
    // The thread's `done` as this core last read it, and in which of its
    // polls: the worker's line crosses to the NIC core once a poll, not
    // once a message (NicCore::done_this_poll).
    uint64_t done_seen = 0;
    uint64_t done_seen_poll = UINT64_MAX;
    // The messages chosen for this thread in the current poll, pushed into
    // rx in one burst before the poll ends, so the ring's shared indices
    // and the worker's signals cross cores once per poll rather than once
    // per message. JBSQ counts them at choice (`delivered`), so its bound
    // holds as if each had been pushed at once.
    uint32_t staged_n = 0;
    rte_mbuf* staged[kStagedMax];
    // Inline slots (inline_msg.h; NIC core 0 of a one-NIC-core host only):
    // messages pushed into rx so far, the next slot to try, and for each
    // slot the count of pushed messages once its holder was pushed (the
    // slot is free when `done` has reached it).
    uint64_t pushed = 0;
    uint32_t next_slot = 0;
    std::unique_ptr<uint64_t[]> slot_owner;

    void count_delivered(int64_t n) {  // the owning NIC core only: no read-modify-write needed
      delivered.store(delivered.load(std::memory_order_relaxed) + static_cast<uint64_t>(n),
                      std::memory_order_relaxed);
    }
  };

  MsgFifo rx;  // NIC cores → thread: complete messages (several producers when nic_cores > 1)
  // Small messages' slots each way (inline_msg.h); empty: every message in an mbuf.
  std::unique_ptr<InlineMsg[]> rx_inline;
  uint32_t rx_inline_slots = 0;
  std::unique_ptr<InlineTxMsg[]> tx_inline;
  uint32_t tx_inline_slots = 0;
  // Thread → NIC core k: complete messages to the peers k owns
  // (nic_core_for_peer); only tx[0] exists on a host with one NIC core.
  MsgFifo tx[kMaxNicCores];
  NoticeFifo failures;  // NIC cores → thread: its messages given up or refused, by tag
  uint32_t thread_id = 0;
  uint32_t worker = 0;              // index of the worker core running the thread
  uint32_t nic_cores = 1;           // NIC cores of the host (docs/design.md §7)
  CoreSignals* signals = nullptr;   // that worker's interrupt line
  Doorbell* nic_doorbell = nullptr; // adaptive polling: rung after a TX push (else null)
  std::atomic<uint16_t> context{0};
  std::atomic<uint8_t> priority{0};
  NicSide nic[kMaxNicCores];
  // NIC only (read by the thread): its messages the transport gave up
  // (Thread::tx_failures(): no message disappears without its sender
  // knowing; which ones: `failures`).
  alignas(64) std::atomic<uint64_t> tx_failed{0};
  std::atomic<uint64_t> tx_rejected{0};  // of tx_failed: rejected for load (Thread::tx_rejections())
  // Worker only (read by the NIC): msg_done()s, each returning a JBSQ credit.
  alignas(64) std::atomic<uint64_t> done{0};
  // In a simulation only (one thread runs every core): when each recent
  // msg_done() happened on its core's own clock. A core that was charged
  // 5 us for a message ends it 5 us after the instant its poll ran; the
  // NIC must not see the credit before then (JBSQ would send the next
  // message to a core still busy). Oldest first; pruned by the worker.
  std::deque<uint64_t> done_at;

  // The TX FIFO of the NIC core that owns dst_ip.
  [[nodiscard]] MsgFifo& tx_for(uint32_t dst_ip) {
    return nic_cores == 1 ? tx[0] : tx[nic_core_for_peer(dst_ip, nic_cores)];
  }
  // Messages every NIC core gave the thread. With several NIC cores each
  // reads the others' counts as they were a moment ago: two cores choosing
  // at once may both take the last credit, so the bound is n + nic_cores - 1
  // at worst (docs/design.md §7).
  [[nodiscard]] uint64_t delivered() const {
    uint64_t d = nic[0].delivered.load(std::memory_order_relaxed);
    for (uint32_t k = 1; k < nic_cores; ++k) d += nic[k].delivered.load(std::memory_order_relaxed);
    return d;
  }

  [[nodiscard]] uint32_t outstanding() const {
    uint64_t d = done.load(std::memory_order_acquire);
    if (!done_at.empty()) [[unlikely]] {
      const uint64_t now = clock::ticks();
      for (uint64_t at : done_at) d -= at > now;  // not yet done on the core's clock
    }
    return static_cast<uint32_t>(delivered() - d);
  }
  // Simulation: when the next credit not yet visible becomes so (max: none).
  [[nodiscard]] uint64_t next_credit_at() const {
    const uint64_t now = clock::ticks();
    for (uint64_t at : done_at)
      if (at > now) return at;
    return UINT64_MAX;
  }
};

}  // namespace nanopu
