// Deterministic simulation testing (docs/design.md §11; FoundationDB's and
// TigerBeetle's way): a replicated service's real code on every host of a
// small cluster, on one modelled clock, under a fault schedule drawn from a
// seed — frames dropped, duplicated, reordered and trimmed on every host's
// wire, hosts cut off for a while and healed, a Raft server killed and
// restarted from its --raft_state, a chain replica killed and restarted
// empty (its master takes it out and brings it back), a client killed, NDP
// or Homa — and its invariants checked after the run:
//   - every request answered exactly once (a crashed client's excepted), and
//     the history of every client's calls linearizable as a register per key
//     (nanopu/lincheck.h);
//   - Raft: at most one leader per term (from the servers' own log lines).
// One seed is one run, event for event: a failing seed replays alone.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/timing/timing_params.h"
#include "runtime/simulation/simulation.h"

namespace nanopu::sim {

enum class DstService { kRaft, kChain, kKv };
[[nodiscard]] const char* dst_service_name(DstService s);

// One seed's cluster and faults.
struct DstCase {
  DstService service = DstService::kKv;
  uint64_t seed = 1;
  std::string topology;     // a topology file's text
  std::vector<SimCut> cuts;
  std::vector<SimCrash> crashes;  // a Raft server or chain replica killed and restarted; a client killed for good
  std::vector<std::string> state_files;  // Raft's --raft_state, removed after the run
  std::vector<std::string> clients;      // the client hosts' names
  std::string faults;       // in words, for the report
  std::string history_path;  // where the run's history goes ("": kept in memory only)
  bool buggify = true;       // the NIC's buggify sites on (lib/base/nic_buggify.h), drawn from the seed
  bool raft_sync = true;     // Raft servers sync their state (--raft_sync); a power loss then keeps it
};

// The case seed `seed` draws for `service`; Raft servers keep their state
// in files under `state_dir` (they may be crashed and restarted), synced
// before they are relied on unless `raft_sync` is false (--raft_sync).
[[nodiscard]] DstCase make_dst_case(DstService service, uint64_t seed, const std::string& state_dir = "/tmp",
                                    bool raft_sync = true);

struct DstOutcome {
  bool passed = false;
  std::string why;          // the first invariant broken, or the run's error
  uint64_t trace_hash = 0;
  uint64_t modelled_ps = 0;
  uint64_t frames = 0, cut_dropped = 0, restarts = 0;
  uint64_t leader_terms = 0;  // Raft: terms that had a leader
  uint64_t chain_reconfigs = 0;  // chain: configurations the master announced after the first
  uint64_t history_events = 0, client_crashes = 0;
  double check_s = 0;         // the linearizability check's wall time
  std::string client_report;  // the load generators' result lines
  std::string log;            // what the hosts wrote on stderr
};

// Runs the case (DPDK's EAL must be up) and checks its invariants: every
// client's requests answered exactly once, each reply well-formed (a
// crashed client's excepted), the run's history (every client's requests)
// linearizable as a register per key (nanopu/lincheck.h), and for Raft one
// leader per term.
[[nodiscard]] DstOutcome run_dst_case(const DstCase& c, const model::TimingParams& timing);

// Raft's invariant from its servers' log: "raft: server I is the leader of
// term T" lines; empty if no term had two leaders, else the first such term.
[[nodiscard]] std::string check_one_leader_per_term(const std::string& log, uint64_t* terms);

// Chain's reconfigurations from its master's log: "chain-master: epoch E"
// lines; the highest epoch announced less the first.
[[nodiscard]] uint64_t count_chain_reconfigurations(const std::string& log);

}  // namespace nanopu::sim
