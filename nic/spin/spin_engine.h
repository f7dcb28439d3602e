// The sPIN engine of a NIC core (docs/design.md §12): the execution contexts
// a host installed, which of them takes a message, and the run of a
// message through its handlers — header on the first packet, payload on
// each packet, completion after the last (PsPIN §II's ordering) — then
// what they asked for: the host message, the original let through, the
// sends (held until flush(), outside the transport's receive path).
//
// Where: in the transport's receive path. A multi-packet message is
// streamed (spin_stream.cc): the transport shows the engine each packet it
// keeps (PacketTap), exactly once however often the packet came, and the
// handlers run on it then — packet 0's header handler first, so a packet
// that overtook it waits in the reassembly buffer until it is in — and the
// completion runs when the transport hands the whole message over, before
// core selection. A one-packet message runs whole then. On the NIC core
// itself, or, while HPU lcores run (start_hpus, hpu_core.h), on the
// context's home HPU, in order through its ring, the NIC core applying the
// outcome when it is back.
#pragma once

#include <rte_mbuf.h>

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "lib/contract/context_table.h"
#include "nanopu/spin.h"
#include "nanopu/stats.h"
#include "nic/reassembly/packet_tap.h"
#include "nic/spin/handler_runner.h"
#include "nic/spin/hpu_core.h"
#include "nic/spin/spin_run.h"
#include "nic/spin/spin_sink.h"
#include "nic/spin/spin_stream.h"
#include "nic/spin/spin_task.h"

namespace nanopu {

class SpinEngine final : public PacketTap {
 public:
  SpinEngine(NicCounters* counters, SpinSink* sink) : counters_(counters), sink_(sink) {}
  // Sends still waiting for a slot (the transport full to the end) are
  // freed, counted and reported.
  ~SpinEngine() override;
  SpinEngine(const SpinEngine&) = delete;
  SpinEngine& operator=(const SpinEngine&) = delete;

  // Refuses a context whose rule overlaps an installed one's, one too big
  // or with no handler, with the reason.
  [[nodiscard]] absl::Status install(spin::ExecutionContext ctx);
  // What install checks of a context alone (not its overlap with others'),
  // and its init run on its memory: for spin::LocalContext too.
  [[nodiscard]] static absl::Status check(const spin::ExecutionContext& ctx);
  [[nodiscard]] static absl::Status run_init(const spin::ExecutionContext& ctx, uint8_t* memory);
  [[nodiscard]] bool empty() const { return slots_.empty(); }

  // Takes msg (a whole received message) if it was streamed (its
  // completion runs) or a context's rule matches it (its handlers run):
  // on the NIC core or through its HPU, and, once they
  // ran, delivers what they wrote, the original if it goes on (forwarded,
  // or its context disabled), or frees it. False: no context matches; the
  // caller delivers msg as usual.
  bool take(rte_mbuf* msg, ContextEntry* dst);
  // The transport's packets as it keeps them: a matched message's handlers
  // run packet by packet (spin_stream.cc).
  void on_stored(InboundMessage& m, uint8_t pkt_offset) override;
  void on_abandoned(InboundMessage& m) override;
  // The handlers' sends, to the transport (outside its receive path); one
  // whose transport has no packetization slot waits, in order, for a later
  // flush (kMaxWaitingSends at most: past them a send is lost, counted).
  void flush(SpinSink& sink);
  [[nodiscard]] bool has_sends() const { return !sends_.empty(); }
  [[nodiscard]] const std::vector<rte_mbuf*>& sends() const { return sends_; }
  static constexpr size_t kMaxWaitingSends = 4096;

  // HPU lcores: n cores (each the home of every n-th context), their loops
  // launched by the caller (HpuCore::main on an lcore each), until
  // stop_hpus(); then finish_hpus() applies what they did last.
  [[nodiscard]] absl::Status start_hpus(uint32_t n, rte_mempool* pool, const std::string& name);
  [[nodiscard]] HpuCore* hpu(size_t k) { return hpus_[k].get(); }
  [[nodiscard]] size_t hpu_count() const { return hpus_.size(); }
  void stop_hpus();
  void finish_hpus(SpinSink& sink);
  // On the NIC core, each poll while HPUs run: their finished tasks
  // applied, waiting messages handed over. The number applied.
  unsigned poll_hpus(SpinSink& sink);
  [[nodiscard]] bool in_flight() const { return in_flight_ != 0 || !waiting_.empty(); }

  // The handlers for t (on an HPU core, or the NIC core), its outputs made
  // from `pool` and stamped `now` (the NIC core's clock: a simulation's
  // modelled time there); touches only t's context's own state (and its
  // stream's). `run`: the core's Handle for a whole message.
  void execute(SpinTask& t, SpinRun& run, rte_mempool* pool, uint64_t now);

  [[nodiscard]] std::vector<spin::ContextReport> reports() const;

 private:
  struct Slot {
    spin::ExecutionContext ctx;
    std::unique_ptr<uint8_t[]> memory;
    std::unique_ptr<uint8_t[]> scratch;
    HandlerTally tally;
    spin::ContextReport report;  // written where its handlers run
    size_t home = 0;             // its HPU
    bool disabled = false;       // as its handlers' core knows it
    bool nic_disabled = false;   // as the NIC core knows it (applied)
    uint64_t nic_bypassed = 0;   // messages the NIC core let through itself
    uint64_t nic_abandoned = 0;  // streamed messages the transport freed incomplete
    uint64_t begun = 0;          // messages whose handlers began (MessageInfo::seq), where they run
  };
  [[nodiscard]] Slot* match(const rte_mbuf* msg, uint16_t context);
  void run_handlers(Slot& s, rte_mbuf* msg, SpinRun& run);
  // The steps of execute(): a streamed message's (spin_stream.cc), and
  // what a message whose handlers ended asks for.
  void execute_step(Slot& s, SpinTask& t, rte_mempool* pool, uint64_t now);
  void carry_out(Slot& s, SpinTask& t, SpinRun& run, rte_mempool* pool, uint64_t now);
  // run's fault, if any, disables s (once) and names it in t.
  static bool note_fault(Slot& s, SpinTask& t, const SpinRun& run);
  static void bypass(Slot& s, SpinTask& t);
  // The outcome of t, on the NIC core.
  void apply(SpinTask& t, SpinSink& sink);
  // Runs t here, or hands it to its home HPU (in order behind the others).
  void submit(const SpinTask& t);
  void open(InboundMessage& m);         // packet 0 is in: a stream, if a context takes it
  void settle(SpinStream* st);          // one of its tasks applied
  unsigned collect_hpus(SpinSink& sink);  // finished tasks applied
  void hand_over(const SpinTask& in);  // into a free task, to its slot's home HPU

  NicCounters* counters_;
  SpinSink* sink_;
  std::vector<std::unique_ptr<Slot>> slots_;
  absl::flat_hash_map<uint16_t, std::vector<Slot*>> by_context_;
  SpinRun run_;         // the NIC core's Handle
  SpinTask inline_;     // the NIC core's task
  rte_mempool* pool_ = nullptr;
  std::vector<rte_mbuf*> sends_;
  // Streams: made on the first install; those free; those open, by their message's first segment
  // (what the transport hands over whole).
  std::vector<std::unique_ptr<SpinStream>> streams_;
  std::vector<SpinStream*> free_streams_;
  absl::flat_hash_map<const rte_mbuf*, SpinStream*> streaming_;
  // With HPUs: the tasks (as many as a ring holds), the free ones, and the
  // messages waiting for one, in arrival order.
  std::vector<std::unique_ptr<HpuCore>> hpus_;
  std::vector<SpinTask> tasks_;
  std::vector<SpinTask*> free_;
  std::deque<SpinTask> waiting_;
  uint32_t in_flight_ = 0;
};

}  // namespace nanopu
