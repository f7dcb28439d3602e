// What a replica persists: every write it applied, a line each ("seq key
// value"), appended and flushed before the write is visible, so a replica
// killed and restarted (in a simulation: its program made again, its state
// directory kept) comes back with every write it ever showed anyone.
#pragma once

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <string>
#include <unordered_map>

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
    if (std::FILE* in = std::fopen(path.c_str(), "r")) {
      uint64_t seq = 0;
      int64_t key = 0, value = 0;
      while (std::fscanf(in, "%" SCNu64 " %" SCNd64 " %" SCNd64, &seq, &key, &value) == 3) {
        Entry& e = (*store)[key];
        if (seq > e.seq) e = Entry{value, seq};
        if (seq > *max_seq) *max_seq = seq;
      }
      std::fclose(in);
    }
    out_ = std::fopen(path.c_str(), "a");
    return out_ != nullptr;
  }
  ~StateLog() {
    if (out_ != nullptr) std::fclose(out_);
  }
  // False if the line could not be written whole: the write must then not
  // be applied.
  bool append(uint64_t seq, int64_t key, int64_t value) {
    return std::fprintf(out_, "%" PRIu64 " %" PRId64 " %" PRId64 "\n", seq, key, value) > 0 && std::fflush(out_) == 0;
  }

 private:
  std::FILE* out_ = nullptr;
};

}  // namespace pb
