// The two replicas of the primary-backup register store, as programs
// (nanopu/program.h). The primary serves clients: a WRITE is sent to the
// backup — from the thread that serves, its reply deferred until the
// backup has it (rpc::ServerCall::defer) — and applied to the primary's
// store then; a READ is answered from that store, where every write a
// client may have seen is, each on the backup too. The backup applies each write it is sent, newest by the
// primary's sequence number, and keeps them in a log in its state
// directory. The backup is the store's durability: the primary keeps
// nothing on disk, and a primary started again asks its backup for every
// key (SNAPSHOT) before it serves — so a write it acknowledged before its
// backup had it would be lost, which is why it does not.
//
// Built with -DPB_PLANTED_BUG=ON (CMake), the primary does: it answers a
// WRITE at once and sends writes to the backup eight at a time. A crash of
// the primary then loses the writes not yet sent, and a fault campaign's
// linearizability check finds it (docs/services.md, "Finding the bug").
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "absl/status/statusor.h"
#include "nanopu/program.h"
#include "nanopu/rpc.h"
#include "pb_protocol.h"
#include "state_log.h"

namespace pb {

class Primary final : public nanopu::Program {
 public:
  static absl::StatusOr<std::unique_ptr<nanopu::Program>> make(const nanopu::ProgramArgs& a);
  absl::Status spawn(nanopu::Runtime& rt) override;
  std::string banner() const override;
  int report(nanopu::Runtime& rt, FILE* out) override;
  // For invariants: per key, the sequence number of the newest write a
  // client was told is done (its backup had it by then).
  [[nodiscard]] const std::unordered_map<int64_t, uint64_t>& acknowledged() const { return acked_; }

 private:
  struct Replication {
    nanopu::rpc::DeferredReply reply;  // not pending: already answered (the planted bug)
    int64_t key = 0, value = 0;
    uint64_t seq = 0;
    uint32_t attempts = 0;
  };
  struct Request {
    Op op = Op::kReplicate;  // kRead, kWrite; anything else: a bad request
    int64_t key = 0, value = 0;
  };
  // A call that came before the backup's keys (SNAPSHOT): answered after.
  struct Held {
    Request q;
    nanopu::rpc::DeferredReply reply;
  };
  void serve(nanopu::Thread& t);
  static Request parse(nanopu::rpc::ServerCall& c);
  void handle(nanopu::rpc::Client& to_backup, nanopu::rpc::ServerCall& c);
  // A READ (or a bad request) answered, now or later.
  template <typename Call>
  void answer(Call& c, const Request& q);
  void write(nanopu::rpc::Client& to_backup, nanopu::rpc::DeferredReply c, const Request& q);
  void completed(nanopu::rpc::Client& to_backup, const nanopu::rpc::Completion& done);
  // Sends r to the backup (again); the deferred reply fails after too many tries.
  void replicate(nanopu::rpc::Client& to_backup, Replication r);
  // Asks the backup for every key (again, until it answers): a primary
  // serves no call before it has them.
  void ask_snapshot(nanopu::rpc::Client& to_backup);
  void take_snapshot(nanopu::rpc::Client& to_backup, const nanopu::rpc::Completion& done);

  uint16_t context_ = 1;
  nanopu::rpc::Peer backup_;
  std::chrono::microseconds timeout_{1000};
  uint32_t max_attempts_ = 50;
  bool stats_ = false;
  bool recovered_ = false;      // the backup's keys are in (SNAPSHOT)
  uint64_t snapshot_call_ = 0;  // the SNAPSHOT call's id (0: none in flight)
  std::unordered_map<int64_t, Entry> store_;
  uint64_t next_seq_ = 0;
  std::unordered_map<uint64_t, Replication> in_flight_;  // by the backup call's id
  std::vector<Replication> unsent_;                       // the planted bug's batch
  std::vector<Held> held_;
  std::unordered_map<int64_t, uint64_t> acked_;
  uint64_t writes_ = 0, reads_ = 0, retries_ = 0, gave_up_ = 0, bad_ = 0, held_total_ = 0;
};

class Backup final : public nanopu::Program {
 public:
  static absl::StatusOr<std::unique_ptr<nanopu::Program>> make(const nanopu::ProgramArgs& a);
  absl::Status spawn(nanopu::Runtime& rt) override;
  std::string banner() const override;
  int report(nanopu::Runtime& rt, FILE* out) override;
  // The SNAPSHOT reply: every key it holds, with its value and sequence number.
  void snapshot(nanopu::rpc::ServerCall& c);
  // For invariants: the sequence number of the newest write of `key` it holds (0: none).
  [[nodiscard]] uint64_t seq_of(int64_t key) const {
    auto it = store_.find(key);
    return it == store_.end() ? 0 : it->second.seq;
  }

 private:
  uint16_t context_ = 2;
  bool stats_ = false;
  StateLog log_;
  std::unordered_map<int64_t, Entry> store_;
  uint64_t applied_ = 0, stale_ = 0, bad_ = 0;
};

[[nodiscard]] nanopu::ProgramSpec primary_program();
[[nodiscard]] nanopu::ProgramSpec backup_program();
[[nodiscard]] nanopu::ProgramSpec client_program();

}  // namespace pb
