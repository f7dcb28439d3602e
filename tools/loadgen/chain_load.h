// nanopu-loadgen's chain-replication client (--service=chain): WRITEs to the
// chain's head, READs at its tail (apps/chain/chain_protocol.h), keys drawn
// uniformly from --chain_keys, every reply checked:
//
// - a value encodes its key and this client's version of it (word 0 =
//   key << 32 | version, the others derived from both); the replicas order
//   writes by the version the head gives them, which the replies carry;
// - a WRITE's acknowledgement must come from the tail and name its key;
// - a READ must return a whole value of its key: one of this client's
//   versions between the newest acknowledged before it was sent and the
//   newest sent — or, with --shared_keys, any writer's (the history holds
//   the order); a miss is right only if no WRITE of the key was acknowledged.
//
// It starts from --chain and learns the current chain from refusals
// (a replica that is not the head or tail it needs answers with its
// configuration); a request unanswered for --chain_retry_ms ends (lost, info
// in the history) and the next goes to the next replica it knows.
// Requests are matched to replies by sent_time (unique per request).
#pragma once

#include <vector>

#include "tools/loadgen/loadgen.h"

namespace nanopu::apps {

struct ChainLoadOptions {
  std::vector<uint64_t> chain;  // chain_node(ip, ctx), head first: where it starts
  uint32_t client_ip = 0;       // this host: the tail replies to (client_ip, --context)
  uint32_t keys = 1000;
  double write_fraction = 0.5;
  bool preload = true;          // WRITE every key once before measuring
  double retry_ms = 0;          // a request unanswered this long ends (0: only the drain timeout)
};

struct ChainLoadResult {
  uint64_t reads = 0, read_hits = 0, writes = 0, refused = 0, reconfigured = 0;
};

void run_chain_client(Thread& t, const LoadGenOptions& o, const ChainLoadOptions& c,
                      LoadGenResult* r, ChainLoadResult* cr);

}  // namespace nanopu::apps
