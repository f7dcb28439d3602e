// A fault-injecting wire: wraps a port's receive path (frames as they come
// off the wire, before the MAC hands them to the pipeline) and, seeded,
// drops, duplicates, reorders, delays, corrupts, mangles or trims them as a
// FaultSpec says (include/nanopu/fault_spec.h lists each fault).
#pragma once

#include <rte_mbuf.h>
#include <rte_mempool.h>

#include <cstdint>
#include <deque>
#include <string>

#include "absl/container/flat_hash_set.h"
#include "nanopu/fault_spec.h"
#include "nanopu/seeded_draw.h"

namespace nanopu {

struct FaultCounters {
  uint64_t dropped = 0, duplicated = 0, reordered = 0, delayed = 0, corrupted = 0, mangled = 0,
           trimmed = 0;
};

class FaultInjector {
 public:
  FaultInjector(const FaultSpec& spec, rte_mempool* pool, uint64_t tsc_hz);
  ~FaultInjector();
  FaultInjector(const FaultInjector&) = delete;
  FaultInjector& operator=(const FaultInjector&) = delete;

  // Applies faults to the n frames in pkts (which has room for max), in
  // place; returns how many frames now follow (held ones may be released).
  [[nodiscard]] uint16_t apply(rte_mbuf** pkts, uint16_t n, uint16_t max, uint64_t now);
  [[nodiscard]] const FaultCounters& counters() const { return counters_; }
  // When the first frame held back (delay, reorder) is due; UINT64_MAX:
  // none. Before then apply() with no frames changes nothing.
  [[nodiscard]] uint64_t next_release() const {
    uint64_t t = UINT64_MAX;
    for (const Held& h : held_) t = h.release_tsc < t ? h.release_tsc : t;
    return t;
  }

 private:
  bool chance(double p) { return p > 0 && rng_.chance(p); }
  void trim_frame(rte_mbuf* m);
  [[nodiscard]] rte_mbuf* writable(rte_mbuf* m);
  static void flip_bit(rte_mbuf* m, uint32_t from, uint32_t to, uint64_t r);
  [[nodiscard]] bool first_time(const rte_mbuf* m, absl::flat_hash_set<uint64_t>& seen);

  struct Held {
    rte_mbuf* pkt;
    uint64_t release_tsc;
  };
  FaultSpec spec_;
  rte_mempool* pool_;
  uint64_t delay_tsc_, ack_delay_tsc_;
  SeededDraw rng_;  // one seed, one schedule with any standard library
  std::deque<Held> held_;
  absl::flat_hash_set<uint64_t> dropped_once_, trimmed_once_;
  FaultCounters counters_;
};

}  // namespace nanopu
