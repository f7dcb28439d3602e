// The two replicas of the primary-backup register store, as programs
// (nanopu/program.h). The primary serves clients: a WRITE is logged,
// applied, then sent to the backup — from the thread that serves, its reply
// deferred until the backup has it (rpc::ServerCall::defer) — and a READ is
// answered from the primary's own store, where every write a client may
// have seen is. The backup applies each write it is sent, newest by the
// primary's sequence number. Each keeps its writes in a log in its state
// directory and reads it back when it is started again.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>

#include "absl/status/statusor.h"
#include "nanopu/program.h"
#include "nanopu/rpc.h"
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
    nanopu::rpc::DeferredReply reply;
    int64_t key = 0, value = 0;
    uint64_t seq = 0;
    uint32_t attempts = 0;
  };
  void serve(nanopu::Thread& t);
  void handle(nanopu::rpc::Client& to_backup, nanopu::rpc::ServerCall& c);
  void completed(nanopu::rpc::Client& to_backup, const nanopu::rpc::Completion& done);
  // Sends r to the backup (again); the deferred reply fails after too many tries.
  void replicate(nanopu::rpc::Client& to_backup, Replication r);

  uint16_t context_ = 1;
  nanopu::rpc::Peer backup_;
  std::chrono::microseconds timeout_{1000};
  uint32_t max_attempts_ = 50;
  bool stats_ = false;
  std::string log_path_;
  StateLog log_;
  std::unordered_map<int64_t, Entry> store_;
  uint64_t next_seq_ = 0;
  std::unordered_map<uint64_t, Replication> in_flight_;  // by the backup call's id
  std::unordered_map<int64_t, uint64_t> acked_;
  uint64_t writes_ = 0, reads_ = 0, retries_ = 0, gave_up_ = 0, bad_ = 0;
};

class Backup final : public nanopu::Program {
 public:
  static absl::StatusOr<std::unique_ptr<nanopu::Program>> make(const nanopu::ProgramArgs& a);
  absl::Status spawn(nanopu::Runtime& rt) override;
  std::string banner() const override;
  int report(nanopu::Runtime& rt, FILE* out) override;
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
