// Raft's persistent state (Raft §5, Figure 2: "updated on stable storage
// before responding to RPCs": currentTerm, votedFor, log[]) in an
// append-only file of fixed-size records (a nanopu::DurableFile), written
// and synced before the node sends anything that depends on it: a killed
// process keeps it, and so does a machine that loses power
// (nanopu/durable_file.h; `--raft_sync=false` skips the sync, and a power
// loss then breaks Raft's promises — nanopu-dst finds it). A record cut
// short by a crash mid-write is cut off when the file is opened again. A
// write that fails stops the server (it must not answer without its state).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "apps/raft/raft_entry.h"
#include "nanopu/durable_file.h"

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
  // `sync`: every record synced before it is relied on.
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<RaftStorage>> open(const std::string& path, bool sync = true);
  ~RaftStorage();
  RaftStorage(const RaftStorage&) = delete;
  RaftStorage& operator=(const RaftStorage&) = delete;

  [[nodiscard]] const State& recovered() const { return recovered_; }
  void save_term_vote(uint64_t term, int vote);
  void append(const RaftEntry& e);  // the log's next entry
  void truncate(uint64_t entries);  // keep the first `entries`

 private:
  RaftStorage(std::unique_ptr<DurableFile> f, bool sync) : file_(std::move(f)), sync_(sync) {}
  void put(const uint64_t* words, size_t n);

  std::unique_ptr<DurableFile> file_;
  bool sync_;
  State recovered_;
};

}  // namespace nanopu::apps
