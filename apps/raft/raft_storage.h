// Raft's persistent state (Raft §5, Figure 2: "updated on stable storage
// before responding to RPCs": currentTerm, votedFor, log[]) in an
// append-only file of fixed-size records, written with write(2) before the
// node sends anything that depends on it. A killed process keeps it (the
// kernel has the bytes); a machine that loses power may not (no fsync:
// nanopu's Raft is measured in memory, as the paper's is). A record cut
// short by a crash mid-write is cut off when the file is opened again. A
// write that fails stops the server (it must not answer without its state).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "apps/raft/raft_entry.h"

namespace nanopu::apps {

class RaftStorage {
 public:
  // What the file held when opened (empty for a new file).
  struct State {
    uint64_t term = 0;
    int vote = -1;
    std::vector<RaftEntry> log;
  };

  // Opens (creates) `path` and reads it back; an error names the path.
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<RaftStorage>> open(const std::string& path);
  ~RaftStorage();
  RaftStorage(const RaftStorage&) = delete;
  RaftStorage& operator=(const RaftStorage&) = delete;

  [[nodiscard]] const State& recovered() const { return recovered_; }
  void save_term_vote(uint64_t term, int vote);
  void append(const RaftEntry& e);  // the log's next entry
  void truncate(uint64_t entries);  // keep the first `entries`

 private:
  explicit RaftStorage(int fd) : fd_(fd) {}
  void put(const uint64_t* words, size_t n);

  int fd_;
  size_t size_ = 0;  // bytes of whole records in the file
  State recovered_;
};

}  // namespace nanopu::apps
