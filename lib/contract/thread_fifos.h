// The pair of FIFOs that stand in for one thread's netRX/netTX registers
// (nanoPU §2.1): the NIC core is the only producer of rx and the only consumer
// of tx; the thread's worker core is the other side of each. The credit
// counters give JBSQ its per-core outstanding count (nanoPU §3.2).
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>

#include "lib/contract/clock.h"
#include "lib/contract/core_signals.h"
#include "lib/contract/msg_fifo.h"
#include "lib/contract/notice_fifo.h"
#include "lib/contract/wakeup.h"

namespace nanopu {

struct ThreadFifos {
  MsgFifo rx;  // NIC core → thread: complete messages
  MsgFifo tx;  // thread → NIC core: complete messages to send
  NoticeFifo failures;  // NIC core → thread: its messages given up or refused, by tag
  uint32_t thread_id = 0;
  uint32_t worker = 0;              // index of the worker core running the thread
  CoreSignals* signals = nullptr;   // that worker's interrupt line
  Doorbell* nic_doorbell = nullptr; // adaptive polling: rung after a TX push (else null)
  std::atomic<uint16_t> context{0};
  std::atomic<uint8_t> priority{0};
  // NIC core only: messages core selection gave this thread (pushed into
  // rx, or staged to be).
  uint64_t delivered = 0;
  // NIC core only: the messages chosen for this thread in the current poll,
  // pushed into rx in one burst before the poll ends, so the ring's shared
  // indices and the worker's signals cross cores once per poll rather than
  // once per message. JBSQ counts them at choice (`delivered`), so its bound
  // holds as if each had been pushed at once.
  static constexpr uint32_t kStagedMax = 32;
  rte_mbuf* staged[kStagedMax];
  uint32_t staged_n = 0;
  // NIC only (read by the thread): its messages the transport gave up
  // (Thread::tx_failures(): no message disappears without its sender
  // knowing; which ones: `failures`).
  alignas(64) std::atomic<uint64_t> tx_failed{0};
  // Worker only (read by the NIC): msg_done()s, each returning a JBSQ credit.
  alignas(64) std::atomic<uint64_t> done{0};
  // In a simulation only (one thread runs every core): when each recent
  // msg_done() happened on its core's own clock. A core that was charged
  // 5 us for a message ends it 5 us after the instant its poll ran; the
  // NIC must not see the credit before then (JBSQ would send the next
  // message to a core still busy). Oldest first; pruned by the worker.
  std::deque<uint64_t> done_at;

  [[nodiscard]] uint32_t outstanding() const {
    uint64_t d = done.load(std::memory_order_acquire);
    if (!done_at.empty()) [[unlikely]] {
      const uint64_t now = clock::ticks();
      for (uint64_t at : done_at) d -= at > now;  // not yet done on the core's clock
    }
    return static_cast<uint32_t>(delivered - d);
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
