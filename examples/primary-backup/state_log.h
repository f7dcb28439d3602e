// What a replica persists: every write it applied, a line each ("seq key
// value"), appended and synced before the write is visible, so a replica
// killed and restarted (in a simulation: its program made again, its state
// directory kept) comes back with every write it ever showed anyone — even
// from a power loss (nanopu/durable_file.h: what was not synced may be lost,
// the last line torn; a torn line is read as the end).
#pragma once

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <unordered_map>

#include "nanopu/durable_file.h"

namespace pb {

struct Entry {
  int64_t value = 0;
  uint64_t seq = 0;  // the primary's number of the write
};

class StateLog {
 public:
  // Reads `path` into *store (the newest write of each key) and opens it
  // for appending; false if it cannot be opened.
  bool open(const std::string& path, std::unordered_map<int64_t, Entry>* store, uint64_t* max_seq) {
    std::string bytes;
    absl::StatusOr<std::unique_ptr<nanopu::DurableFile>> f = nanopu::DurableFile::open(path, &bytes);
    if (!f.ok()) return false;
    file_ = std::move(*f);
    size_t whole = 0;  // the bytes of whole lines: a torn last one goes
    for (size_t end; (end = bytes.find('\n', whole)) != std::string::npos; whole = end + 1) {
      uint64_t seq = 0;
      int64_t key = 0, value = 0;
      if (std::sscanf(bytes.c_str() + whole, "%" SCNu64 " %" SCNd64 " %" SCNd64, &seq, &key, &value) != 3) break;
      Entry& e = (*store)[key];
      if (seq > e.seq) e = Entry{value, seq};
      if (seq > *max_seq) *max_seq = seq;
    }
    return file_->truncate(whole).ok();
  }
  // False if the line could not be written whole and synced: the write must
  // then not be applied.
  bool append(uint64_t seq, int64_t key, int64_t value) {
    char line[64];
    const int n = std::snprintf(line, sizeof line, "%" PRIu64 " %" PRId64 " %" PRId64 "\n", seq, key, value);
    return n > 0 && file_->append(line, static_cast<size_t>(n)).ok() && file_->sync().ok();
  }

 private:
  std::unique_ptr<nanopu::DurableFile> file_;
};

}  // namespace pb
