// A thread serving one-sided RDMA operations on a registered region
// (apps/rdma/rdma_protocol.h; docs/apps.md): every request answered, a bad
// one with an error status, no word touched outside the region.
#pragma once

#include <cstdint>

#include "apps/rdma/rdma_protocol.h"
#include "apps/rdma/rdma_region.h"
#include "nanopu/thread.h"

namespace nanopu::apps {

struct RdmaServiceStats {
  uint64_t reads = 0, writes = 0, cas = 0, cas_swapped = 0, faa = 0, indirect_reads = 0;
  uint64_t scans = 0, maxes = 0;  // scan-and-read (matched or not), return-max
  uint64_t out_of_range = 0;   // answered kOutOfRange or kBadPointer
  uint64_t bad_requests = 0;   // answered kBadRequest
  uint64_t dropped = 0;        // too short to answer (no sent_time)
};

// The reply to one request: status and the words after it (data, or old).
struct RdmaReply {
  RdmaStatus status = RdmaStatus::kOk;
  uint32_t nwords = 0;
  uint64_t words[kRdmaMaxWords] = {};
};

// Executes a request of `len` bytes held in words[0..n) (after the header)
// on the region. Returns false if it is too short to answer (no
// service_time and sent_time), else fills *reply.
[[nodiscard]] bool execute_rdma(const uint64_t* words, uint32_t n, uint16_t len, RdmaRegion* region,
                                RdmaServiceStats* stats, RdmaReply* reply);

// Binds `context` and serves until the runtime stops; false if the bind fails.
bool serve_rdma(Thread& t, uint16_t context, uint8_t priority, RdmaRegion* region,
                RdmaServiceStats* stats);

}  // namespace nanopu::apps
