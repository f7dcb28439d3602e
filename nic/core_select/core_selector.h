// Core selection (nanoPU §2.3, §3.2): which of the cores running a thread
// bound to a context gets the next message for it.
//
//   JBSQ(n): the core holding the fewest of the context's messages, if it
//            holds fewer than n; otherwise the message waits in the
//            context's global RX queue until a msg_done returns a credit.
//   RSS:     a hash of the message's source picks the core (no bound).
//   static:  always the first core bound to the context.
//
// A pure policy: counts and hashes come in as arguments, so the live NIC
// core and the virtual-time model share it (docs/design.md §8).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "nanopu/policies.h"

namespace nanopu {

class CoreSelector {
 public:
  static constexpr int kHold = -1;  // keep the message in the global queue

  // single_core_n: JBSQ's bound when exactly one binding has a thread. With
  // one core there is nothing to balance: the bound only decides whether a
  // message waits in the NIC's queue or in the thread's FIFO, so the live
  // NIC core hands over as many as the FIFO holds and a simulation a burst
  // (NicCore::single_binding_bound: an emulator cost, not the nanoPU's).
  // 0: n everywhere.
  CoreSelector(CoreSelectPolicy policy, uint32_t jbsq_n, uint32_t single_core_n = 0)
      : policy_(policy), n_(jbsq_n), single_core_n_(single_core_n > jbsq_n ? single_core_n : jbsq_n) {}

  // JBSQ with a single binding: whether one more message may go to it.
  [[nodiscard]] bool admits_single(uint32_t outstanding) const { return outstanding < single_core_n_; }

  // outstanding[i]: messages delivered to binding i and not yet msg_done'd;
  // bound[i]: whether binding i has a thread. Returns the binding to deliver
  // to, or kHold (JBSQ with every bound core at n, or no core bound).
  // prefer: JBSQ's pick among cores tied for the fewest (the worker sharing
  // the NIC core's lcore, when several NIC cores each share one: the
  // message then stays on its CPU); -1: the first.
  [[nodiscard]] int select(const uint32_t* outstanding, const bool* bound, size_t bindings,
                           uint64_t flow_hash, int prefer = -1) const;

 private:
  CoreSelectPolicy policy_;
  uint32_t n_;
  uint32_t single_core_n_;
};

// Hash of a message's source (IPv4, context) for RSS.
[[nodiscard]] inline uint64_t flow_hash(uint32_t src_ip, uint16_t src_context) {
  uint64_t z = (uint64_t{src_ip} << 16 | src_context) * 0x9e3779b97f4a7c15ull;
  return z ^ (z >> 29);
}

}  // namespace nanopu
