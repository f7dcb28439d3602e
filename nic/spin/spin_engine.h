// The sPIN engine of a NIC core (docs/design.md §12): the execution contexts
// a host installed, which of them takes a message, and the run of a
// message through its handlers — header on the first packet, payload on
// each packet in message order, completion after the last (PsPIN §II's
// ordering; payload handlers of a message run one after another here, which
// that ordering allows) — then what they asked for: the host message, the
// original let through, the sends (held until flush(), outside the
// transport's receive path).
//
// Where: on the NIC core, when the transport hands over a whole message,
// before core selection. nanopu's transport is reliable and may receive a
// message's packets out of order and more than once; running handlers once
// it has them all gives sPIN's ordering and exactly-once handler runs
// without a deferral queue of its own (PsPIN streams packets as they arrive
// on a lossless fabric: docs/design.md §12 says what this changes).
#pragma once

#include <rte_mbuf.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "lib/contract/context_table.h"
#include "nanopu/spin.h"
#include "nanopu/stats.h"
#include "nic/spin/handler_runner.h"
#include "nic/spin/spin_run.h"
#include "nic/spin/spin_sink.h"

namespace nanopu {

class SpinEngine {
 public:
  explicit SpinEngine(NicCounters* counters) : counters_(counters) {}

  // Refuses a context whose rule overlaps an installed one's, one too big
  // or with no handler, with the reason.
  [[nodiscard]] absl::Status install(spin::ExecutionContext ctx);
  [[nodiscard]] bool empty() const { return slots_.empty(); }

  // Runs msg (a whole received message) through the context that takes
  // it. False: none does (or it is disabled): the caller delivers msg as
  // usual. True: msg was taken (delivered, freed or let through).
  bool take(rte_mbuf* msg, ContextEntry* dst, SpinSink& sink);
  // The handlers' sends, to the transport (outside its receive path).
  void flush(SpinSink& sink);
  [[nodiscard]] bool has_sends() const { return !sends_.empty(); }

  [[nodiscard]] std::vector<spin::ContextReport> reports() const;

 private:
  struct Slot {
    spin::ExecutionContext ctx;
    std::unique_ptr<uint8_t[]> memory;
    std::unique_ptr<uint8_t[]> scratch;
    HandlerTally tally;
    spin::ContextReport report;
  };
  [[nodiscard]] Slot* match(const rte_mbuf* msg, uint16_t context);
  void run_handlers(Slot& s, rte_mbuf* msg);
  void disable(Slot& s, spin::Fault f);
  // The host message the handlers wrote, to core selection.
  void deliver_host_message(Slot& s, ContextEntry* dst, SpinSink& sink);
  void stage_sends(Slot& s, SpinSink& sink);

  NicCounters* counters_;
  std::vector<std::unique_ptr<Slot>> slots_;
  absl::flat_hash_map<uint16_t, std::vector<Slot*>> by_context_;
  SpinRun run_;
  std::vector<rte_mbuf*> sends_;
};

}  // namespace nanopu
