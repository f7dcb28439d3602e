// nanopu-loadgen's Raft client (--service=raft; apps/raft): PUTs and GETs
// of 16-byte keys and 64-byte values to the cluster's leader, each checked
// as the key-value client checks them (a GET returns a version no older
// than the newest PUT acknowledged before it was sent, no newer than the
// newest sent).
//
// Finding the leader: a request goes to the server last known to lead; a
// redirect names the leader and the request goes there at once; "retry"
// (no leader yet), a transport give-up or no answer within --raft_retry_ms
// send it to the next server. A request sent again keeps its client_seq, so
// the cluster applies it once and answers it again. Each of the
// --outstanding slots is a Raft client of its own (one request at a time:
// client = slot << 48 | context << 32 | ip).
#pragma once

#include <cstdint>
#include <vector>

#include "tools/loadgen/loadgen.h"

namespace nanopu::apps {

struct RaftLoadOptions {
  std::vector<uint64_t> cluster;  // ctx << 32 | ip of each server
  uint32_t client_ip = 0;
  uint32_t keys = 1000;
  double put_fraction = 0.5;
  double retry_ms = 100;
  bool preload = true;  // PUT every key once before measuring (not measured)
};

struct RaftLoadResult {
  uint64_t puts = 0, gets = 0, get_hits = 0, redirects = 0, resent = 0, transport_give_ups = 0;
  uint64_t superseded = 0;  // answered kSuperseded: a later request of its session was applied first
};

void run_raft_client(Thread& t, const LoadGenOptions& o, const RaftLoadOptions& ro,
                     LoadGenResult* r, RaftLoadResult* rr);

}  // namespace nanopu::apps
