// nanopu-loadgen's chain-replication client (--service=chain): WRITEs to the
// chain's head, READs at its tail (apps/chain/chain_protocol.h), keys drawn
// uniformly from --chain_keys, every reply checked against what this client
// wrote:
//
// - a value encodes its key and a version (word 0 = key << 32 | version,
//   the others derived from both); a WRITE's seq is its version's low 8
//   bits, so at most 127 WRITEs of one key may be in flight;
// - a WRITE's acknowledgement must come from the tail and name its key;
// - a READ must return that key's value, of a version no newer than the
//   newest WRITE sent and no older than the newest acknowledged before the
//   READ was sent (the tail holds every acknowledged WRITE); a miss is
//   correct only if no WRITE of the key had been acknowledged.
//
// Requests are matched to replies by sent_time (unique per request). One
// client per key space: another client's WRITEs would look wrong.
#pragma once

#include <vector>

#include "tools/loadgen/loadgen.h"

namespace nanopu::apps {

struct ChainLoadOptions {
  std::vector<uint64_t> chain;  // chain_node(ip, ctx), head first
  uint32_t client_ip = 0;       // this host: the tail replies to (client_ip, --context)
  uint32_t keys = 1000;
  double write_fraction = 0.5;
  bool preload = true;          // WRITE every key once before measuring
};

struct ChainLoadResult {
  uint64_t reads = 0, read_hits = 0, writes = 0;
};

void run_chain_client(Thread& t, const LoadGenOptions& o, const ChainLoadOptions& c,
                      LoadGenResult* r, ChainLoadResult* cr);

}  // namespace nanopu::apps
