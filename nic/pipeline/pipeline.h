// The NIC's ingress header pipeline (nanoPU §2.3, the P4 PISA pipeline):
// validate the frame, check it is for this host, and match the destination
// context against the port table. DATA for a bound context goes to the fast
// path; control packets go to the transport; with an OS path (Config::
// os_port) a frame of no nanopu transport (not IPv4, or another IP
// protocol) goes to the OS; everything else is counted and dropped (never a
// crash: every branch has a counter).
#pragma once

#include <rte_mbuf.h>

#include <cstdint>

#include "lib/contract/thread_fifos.h"
#include "nanopu/stats.h"
#include "lib/contract/context_table.h"
#include "nic/pipeline/neighbor_table.h"
#include "lib/wire/frame.h"

namespace nanopu {

struct PipelineResult {
  enum class Kind : uint8_t { kDrop, kData, kControl, kOs };
  Kind kind = Kind::kDrop;
  ContextEntry* dst = nullptr;  // kData: the destination context
};

class Pipeline {
 public:
  // nic_core: whose context entries a frame's destination resolves to (a
  // host with several NIC cores has an entry per context per core).
  // os_path: frames of no nanopu transport are kOs (the caller counts them
  // as it hands them over), not parse errors.
  // port_checksum: the port checked each frame's IPv4 checksum (RX
  // offload) and nothing rewrote the frame since (no ingress program, no
  // fault injection): its verdict stands in for the decoder's sum.
  Pipeline(uint32_t host_ip, const ContextTable* contexts, NeighborTable* neighbors,
           NicCounters* counters, uint32_t nic_core = 0, bool os_path = false,
           bool port_checksum = false)
      : host_ip_(host_ip),
        contexts_(contexts),
        neighbors_(neighbors),
        counters_(counters),
        nic_core_(nic_core),
        os_path_(os_path),
        port_checksum_(port_checksum) {}

  // Fills *h and *payload_bytes; on kDrop the caller frees the mbuf.
  [[nodiscard]] PipelineResult classify(const rte_mbuf* m, wire::FrameHeader* h,
                                        size_t* payload_bytes);

 private:
  uint32_t host_ip_;
  const ContextTable* contexts_;
  NeighborTable* neighbors_;
  NicCounters* counters_;
  uint32_t nic_core_;
  bool os_path_;
  bool port_checksum_;

  [[nodiscard]] wire::PortChecksum port_verdict(const rte_mbuf* m);
};

}  // namespace nanopu
