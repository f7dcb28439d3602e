// nanopu-loadgen's key-value client (--service=kv): GET/SET requests in the
// MICA layout (apps/mica/kv_protocol.h) with keys drawn uniformly from
// --kv_keys, each reply checked against what this client wrote:
//
// - a value encodes its key and a version (word 0 = key << 32 | version,
//   the other words derived from both), so a GET must return *that* key's
//   value, of a version no newer than the newest SET sent for it and, with
//   static partitioning, no older than the newest SET acknowledged before
//   the GET was sent ("GET returns the last SET");
// - a miss is correct only if no SET of that key had been acknowledged;
// - with --kv_jbsq (a server whose cores each keep their own partition but
//   take any request, as the paper measured it) misses and older versions
//   are expected and not counted as bad.
//
// Requests are matched to replies by sent_time (unique per request).
#pragma once

#include "tools/loadgen/loadgen.h"

namespace nanopu::apps {

struct KvOptions {
  uint32_t keys = 10000;
  double set_fraction = 0.5;
  uint32_t partitions = 1;  // contexts server_context .. + partitions - 1, by key hash
  bool jbsq = false;        // the server's partitions do not follow the key
  bool preload = true;      // SET every key once before measuring
};

struct KvResult {
  uint64_t gets = 0, get_hits = 0, sets = 0;
};

void run_kv_client(Thread& t, const LoadGenOptions& o, const KvOptions& kv, LoadGenResult* r,
                   KvResult* kr);

}  // namespace nanopu::apps
