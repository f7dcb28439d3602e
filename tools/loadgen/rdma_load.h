// nanopu-loadgen's one-sided RDMA client (--service=rdma; apps/rdma).
//
// mix (default): reads and writes of 1..4 words, compare-and-swaps (half
// of them meant to fail), fetch-and-adds and indirect reads on this
// client's slice of the server's region (--rdma_base, --rdma_words), each
// reply checked word for word against a reference image of the slice (read
// from the server first, unmeasured: the region outlives a client). The
// slice's first words hold pointers (written once, unmeasured) for the
// indirect reads; a word is never the target of two requests in flight,
// so every reply is known when its request leaves.
//
// cas-counter / faa-counter: every request increments the word at
// --rdma_base, by a compare-and-swap loop (expected = the last value seen)
// or by fetch-and-add; several clients may race on it. The client counts
// its successful increments and, at the end, reads the word: after all
// clients finish, it must equal the sum of their increments.
#pragma once

#include <cstdint>

#include "tools/loadgen/loadgen.h"

namespace nanopu::apps {

enum class RdmaLoadMode : uint8_t { kMix, kCasCounter, kFaaCounter };

struct RdmaLoadOptions {
  RdmaLoadMode mode = RdmaLoadMode::kMix;
  uint64_t base = 0;      // byte offset of this client's slice (8-aligned)
  uint32_t words = 1024;  // slice size (mix: at least 64)
  // mix: every operation of Table 2 (-1), or only this one (nanoPU Table
  // 2's rows, one at a time; and the two §4.1 proposes): 0 read, 1 write,
  // 2 CAS, 3 fetch-and-add, 4 indirect read, 5 scan-and-read, 6 return-max.
  int only = -1;
};

struct RdmaLoadResult {
  uint64_t reads = 0, writes = 0, cas = 0, cas_swapped = 0, faa = 0, indirect_reads = 0;
  uint64_t scans = 0, maxes = 0;
  uint64_t increments = 0;    // counter modes: this client's successful increments
  uint64_t final_value = 0;   // counter modes: the word read at the end
};

void run_rdma_client(Thread& t, const LoadGenOptions& o, const RdmaLoadOptions& ro,
                     LoadGenResult* r, RdmaLoadResult* rr);

}  // namespace nanopu::apps
