// The port table of the NIC pipeline (nanoPU §2.3, §3.2): destination
// context → the threads bound to it, at most one per worker core (threads on
// one core bind different contexts; threads on different cores may share
// one, and JBSQ balances between them). Each context also owns its global
// RX queue, where messages wait for a JBSQ credit.
//
// bind()/unbind() run on worker cores, lookup on the NIC core: entries are
// created once and never freed while the table lives, and the per-core
// thread pointers are atomics, so the NIC reads without a lock.
//
// A host with several NIC cores (docs/design.md §7) has one entry per
// context per NIC core: the bindings are the same in each, but the global
// RX queue and the buffer share (`held`, `reassembling`, `packets`) are the
// core's own, so no NIC core writes what another reads.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "lib/contract/msg_fifo.h"
#include "lib/contract/thread_fifos.h"
#include "nanopu/limits.h"

namespace nanopu {

inline constexpr size_t kMaxWorkers = kMaxWorkerCores;

struct ContextEntry {
  uint16_t context = 0;
  std::atomic<ThreadFifos*> threads[kMaxWorkers] = {};  // by worker index
  // Its NIC core only.
  MsgFifo held;              // the global RX queue (JBSQ: waiting for a credit)
  bool pending = false;      // listed in the NIC's pending-contexts list
  uint32_t reassembling = 0; // messages of this context in the reassembly buffer
  uint32_t packets = 0;      // their packets plus those of its queued messages
  // SLO-aware admission (Config::context_slos; NEBULA (ISCA'20) §IV-B): a
  // new message is rejected when at least this many messages per bound
  // thread are ahead of it (SLO / service time - 1). 0: no SLO.
  double slo_ahead_per_thread = 0;

  // Best (lowest) priority among the threads bound to it (255: none).
  [[nodiscard]] uint8_t priority(size_t workers) const {
    uint8_t best = 255;
    for (size_t i = 0; i < workers; ++i)
      if (ThreadFifos* t = threads[i].load(std::memory_order_acquire)) {
        const uint8_t p = t->priority.load(std::memory_order_relaxed);
        if (p < best) best = p;
      }
    return best;
  }
};

class ContextTable {
 public:
  static constexpr size_t kContexts = 1u << 16;

  // global_queue_messages: depth of each context's global RX queue (one
  // per NIC core).
  ContextTable(uint32_t instance, uint32_t global_queue_messages, uint32_t nic_cores = 1);

  // Binds fifos (a thread on worker fifos->worker) to context. Fails with
  // AlreadyExists when a thread on the same worker holds the context.
  [[nodiscard]] absl::Status bind(uint16_t context, ThreadFifos* fifos);
  void unbind(uint16_t context, ThreadFifos* fifos);

  // NIC core nic_core's entry for context (null: never bound).
  [[nodiscard]] ContextEntry* lookup(uint16_t context, uint32_t nic_core = 0) const {
    return entries_[nic_core][context].load(std::memory_order_acquire);
  }
  [[nodiscard]] uint32_t nic_cores() const { return nic_cores_; }
  // Gives context an SLO-aware admission bound (ContextEntry::
  // slo_ahead_per_thread), on every NIC core's entry, made now if need be.
  [[nodiscard]] absl::Status set_slo(uint16_t context, double ahead_per_thread);

 private:
  // The entries of context on every NIC core, created on its first bind.
  [[nodiscard]] absl::StatusOr<ContextEntry*> create_entries(uint16_t context);

  std::unique_ptr<std::atomic<ContextEntry*>[]> entries_[kMaxNicCores];
  std::vector<std::unique_ptr<ContextEntry>> owned_;
  std::mutex mu_;  // serialises entry creation (bind is not on a hot path)
  uint32_t instance_;
  uint32_t global_queue_messages_;
  uint32_t nic_cores_;
};

}  // namespace nanopu
