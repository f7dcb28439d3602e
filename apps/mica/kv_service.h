// The MICA key-value service as a thread body (nanoPU OSDI'21 §5.3, Figure 9;
// message layouts in kv_protocol.h and docs/apps.md).
//
// Two ways to move a value between the network and the store, as the paper
// compares them:
//   kNaive         copies the request into memory, then calls the store,
//                  which copies again (GET: the value out into a buffer,
//                  then into the reply) — MICA's library unchanged;
//   kRegisterFile  reads a SET's value words from the RX FIFO straight into
//                  the log, and writes a GET's value words from the log
//                  straight into the TX FIFO (the paper's 36-line change).
#pragma once

#include <cstdint>

#include "apps/mica/mica_table.h"
#include "nanopu/thread.h"

namespace nanopu::apps {

enum class KvVariant : uint8_t { kNaive, kRegisterFile };

// The service's declared work per request beyond moving its words through
// the FIFOs, for the timing model's modelled column (nanopu's estimates at
// the prototype's 3.2 GHz, not measured on nanoPU hardware):
// - the table: hash the key into the lossy index, probe a bucket, compare
//   the log item's key, append or read the item: two cache-resident
//   accesses and a 16-byte compare, 120 cycles;
// - kNaive also copies each value word between the message buffer and the
//   log: one load and one store on the prototype's single-issue in-order
//   core, 2 cycles per word (the L1's 3-cycle latency, against the register
//   file's 1, nanoPU OSDI'21 §2.1, hidden by the copy loop's pipelining),
//   on the path the register-file variant skips.
inline constexpr double kKvTableCycles = 120;
inline constexpr double kKvNaiveCopyCyclesPerWord = 2;

struct KvServiceStats {
  uint64_t gets = 0, get_hits = 0, sets = 0;
  uint64_t bad_requests = 0;  // answered kKvBadRequest
  uint64_t dropped = 0;       // too short to answer (no sent_time)
};

// Serves one partition: binds `context` at `priority` and answers requests
// from `table` until the runtime stops. Returns false if the bind failed.
bool serve_kv(Thread& t, uint16_t context, uint8_t priority, KvVariant variant, MicaTable* table,
              KvServiceStats* stats);

// One request, already taken from the RX FIFO into words (header word
// first), answered through `reply` — the naive path, without a Thread, for
// the request fuzzer and unit tests. Returns the reply's payload length
// (0: dropped).
template <typename Reply>
uint16_t handle_kv_words(const uint64_t* words, uint32_t nwords, MicaTable* table,
                         KvServiceStats* stats, Reply&& reply);

}  // namespace nanopu::apps

#include "apps/mica/kv_service_inl.h"
