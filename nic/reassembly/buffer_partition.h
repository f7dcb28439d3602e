// Buffer management per context and priority (issue: robustness; NEBULA
// sizes its buffers and NACKs rather than dropping). A new message is
// admitted to the reassembly buffer only if
//   - its context has a reassembly slot to spare (a per-context share),
//   - its context can still hold the packets (a per-context packet budget,
//     so no context can drain the mempool for the others),
//   - its context's global RX queue will have room once it completes (so an
//     acknowledged message is never dropped afterwards), and
//   - it does not take one of the slots reserved for priority-0 contexts,
//     unless it is for one.
// Otherwise the receiver NACKs it, and the sender retries on its timer or
// when the receiver asks for it again (NDP, one-packet messages:
// nic/transport/ndp/refused_pulls.h): a flood on one context slows that
// context only. A pure policy: counts come
// in as arguments (docs/design.md §8).
#pragma once

#include <algorithm>
#include <cstdint>

#include "lib/contract/context_table.h"
#include "nanopu/stats.h"

namespace nanopu {

struct PartitionParams {
  uint32_t total_slots = 256;
  uint32_t reserved_priority0_slots = 64;
  uint32_t context_slots = 128;
  uint32_t context_packets = 4096;
};

struct ContextUsage {
  uint32_t slots = 0;         // messages of this context in reassembly
  uint32_t packets = 0;       // packets of this context in the NIC's custody
  uint32_t queued = 0;        // messages in its global RX queue
  uint32_t queue_capacity = 0;
  uint8_t priority = 0;       // best priority among its bound threads
  // SLO-aware admission: messages ahead of a new one (queued, being
  // reassembled, delivered and not done) and how many its SLO allows
  // (0: no SLO).
  uint32_t ahead = 0;
  uint32_t slo_ahead = 0;
};

// kRejected: over the context's SLO queue — refused for good (NACK|REJECT),
// not asked for again.
enum class Admission : uint8_t { kAdmit, kContextSlots, kContextPackets, kContextQueue, kReserved, kRejected };

class BufferPartition {
 public:
  explicit BufferPartition(const PartitionParams& p) : p_(p) {}

  [[nodiscard]] Admission admit(const ContextUsage& c, uint32_t npkts, uint32_t slots_in_use) const {
    if (c.slo_ahead != 0 && c.ahead >= c.slo_ahead) return Admission::kRejected;
    if (c.slots >= p_.context_slots) return Admission::kContextSlots;
    if (c.packets + npkts > p_.context_packets) return Admission::kContextPackets;
    if (c.queued + c.slots >= c.queue_capacity) return Admission::kContextQueue;
    if (c.priority != 0 && slots_in_use + p_.reserved_priority0_slots >= p_.total_slots)
      return Admission::kReserved;
    return Admission::kAdmit;
  }
  // admit() for a new message of npkts packets to dst, its usage read from
  // the context's entry.
  [[nodiscard]] Admission admit(const ContextEntry* dst, uint32_t npkts, uint32_t slots_in_use,
                                uint32_t workers) const {
    ContextUsage use;
    use.slots = dst->reassembling;
    use.packets = dst->packets;
    use.queued = dst->held.count();
    use.queue_capacity = dst->held.capacity();
    use.priority = dst->priority(workers);
    if (dst->slo_ahead_per_thread > 0) [[unlikely]]
      slo_usage(dst, workers, &use);
    return admit(use, npkts, slots_in_use);
  }
  // A context with an SLO: what is ahead of a new message and what its
  // bound threads may have ahead (each thread's delivered-and-not-done
  // count is the worker's line: read only for such contexts).
  static void slo_usage(const ContextEntry* dst, uint32_t workers, ContextUsage* use) {
    uint32_t threads = 0, in_threads = 0;
    for (uint32_t i = 0; i < workers; ++i)
      if (const ThreadFifos* t = dst->threads[i].load(std::memory_order_acquire)) {
        ++threads;
        in_threads += t->outstanding();
      }
    use->ahead = use->queued + use->slots + in_threads;
    use->slo_ahead = std::max<uint32_t>(1, static_cast<uint32_t>(std::max(1u, threads) * dst->slo_ahead_per_thread));
  }
  // Counts a message refused (a) or, admitted, left without a slot.
  static void count_refusal(Admission a, NicCounters* c) {
    if (a == Admission::kAdmit) ++c->rx_nack_no_slot;
    else if (a == Admission::kReserved) ++c->rx_nack_reserved;
    else if (a == Admission::kRejected) ++c->rx_rejected_slo;
    else ++c->rx_nack_context_full;
  }
  [[nodiscard]] const PartitionParams& params() const { return p_; }

 private:
  PartitionParams p_;
};

}  // namespace nanopu
