// Frames that cross from one process of a distributed simulation to another
// between two windows (model::SimPeers): each written out as the index of
// the end it arrives at, its arrival time, the pool it came from, and its
// bytes; and made again in the other process from the same pool there.
// Every process builds every host in the same order, so the EAL's list of
// pools (rte_mempool_walk, in the order made) is the same in each: a pool
// is its place in that list (its name holds the process id), and a frame
// is freed to the pool it would have been in one process.
// Hand-written: the format is four fields, no library's.
#pragma once

#include <rte_mbuf.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace nanopu::model {

class RankFrames {
 public:
  // Longer is no frame (a record is damaged): refused.
  static constexpr uint32_t kMaxFrameBytes = 1 << 20;
  // Appends the frame to `out` and frees it here.
  void write(uint32_t end, uint64_t at, rte_mbuf* frame, std::string* out);

  // Each frame of `in`, made again, to arrive(end, at, frame), in the order
  // written. An error (a bad record, a pool this process lacks, or one
  // empty) says which; what was read before it has arrived.
  template <typename F>
  absl::Status read(std::string_view in, const F& arrive) {
    while (!in.empty()) {
      Record r;
      if (absl::Status s = next(&in, &r); !s.ok()) return s;
      rte_mbuf* m = nullptr;
      if (absl::Status s = make(r, &m); !s.ok()) return s;
      arrive(r.end, r.at, m);
    }
    return absl::OkStatus();
  }

 private:
  struct Record {
    uint32_t end = 0;
    uint64_t at = 0;
    uint32_t pool = 0;
    std::string_view bytes;
  };
  static absl::Status next(std::string_view* in, Record* r);
  absl::Status make(const Record& r, rte_mbuf** out);
  // The EAL's pools again (a host restarted has made new ones).
  void list_pools();
  std::vector<rte_mempool*> pools_;                     // in the order made
  absl::flat_hash_map<const rte_mempool*, uint32_t> pool_index_;
};

}  // namespace nanopu::model
