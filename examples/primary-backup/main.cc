// primary-backup: a replicated register store — a primary that calls its
// backup before it answers a write (a deferred reply, nanopu/rpc.h) — and
// its client, one binary, written against the installed nanopu only.
//   pb-service primary --vdev=... --backup=10.0.0.3:2      live, each on its host
//   pb-service sim pb.topo --sim_seed=7 --history=h.jsonl  every host on one modelled clock
//   pb-service dst pb.topo --seeds=1000                    under seeded faults, invariants checked
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "nanopu/probe.h"
#include "nanopu/program_main.h"
#include "replicas.h"

namespace {

// The backup holds every write a client was told is done (or a newer one
// of its key): the primary answers a write only once the backup has it.
std::string backup_holds_every_acknowledged_write(const nanopu::sim::Report& r) {
  const pb::Primary* primary = nullptr;
  const pb::Backup* backup = nullptr;
  for (const nanopu::sim::HostReport& h : r.hosts) {
    if (h.program == "primary") primary = dynamic_cast<const pb::Primary*>(h.program_object);
    if (h.program == "backup") backup = dynamic_cast<const pb::Backup*>(h.program_object);
  }
  if (primary == nullptr || backup == nullptr) return "";  // one of them is down at the end: nothing to compare
  for (const auto& [key, seq] : primary->acknowledged())
    if (backup->seq_of(key) < seq)
      return "key " + std::to_string(key) + ": write " + std::to_string(seq) + " acknowledged, the backup has only " +
             std::to_string(backup->seq_of(key));
  return "";
}

// Every value a read returned was written by some client (or is null):
// nothing comes from nowhere.
std::string reads_return_written_values(const nanopu::sim::Report& r) {
  std::set<std::pair<int64_t, int64_t>> written;
  for (const nanopu::HistoryEvent& e : r.history)
    if (e.type == nanopu::HistoryType::kInvoke && e.op.f == "write" && e.op.key)
      written.emplace(*e.op.key, e.op.value.i);
  for (const nanopu::HistoryEvent& e : r.history)
    if (e.type == nanopu::HistoryType::kOk && e.op.f == "read" && !e.op.value.is_null() &&
        !written.contains({e.op.key.value_or(0), e.op.value.i}))
      return "event " + std::to_string(e.index) + ": a read of key " + std::to_string(e.op.key.value_or(0)) +
             " returned " + std::to_string(e.op.value.i) + ", which nobody wrote";
  return "";
}

}  // namespace

int main(int argc, char** argv) {
  nanopu::Programs programs;
  for (nanopu::ProgramSpec p : {pb::primary_program(), pb::backup_program(), pb::client_program()})
    if (absl::Status s = programs.add(std::move(p)); !s.ok()) {
      std::fprintf(stderr, "pb-service: %s\n", std::string(s.message()).c_str());
      return 1;
    }
  // The rare paths a fault campaign should reach (nanopu/probe.h): listed
  // at the end of `dst`, with the seeds that reached each, or as never.
  for (const char* p : {"pb.primary.replicated_again", "pb.primary.gave_up_on_backup", "pb.backup.stale_write",
                        "pb.primary.snapshot_again", "pb.primary.recovered_keys", "pb.primary.held_while_recovering"})
    nanopu::declare_probe(p);
  // Checked after every run of `dst`: the history is linearizable as one
  // register per key (nanopu/lincheck.h), and the two invariants above.
  return nanopu::program_main(argc, argv, programs,
                              {{"linearizable", nanopu::sim::linearizable("register")},
                               {"backup holds every acknowledged write", backup_holds_every_acknowledged_write},
                               {"reads return written values", reads_return_written_values}});
}
