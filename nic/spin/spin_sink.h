// What the sPIN engine needs of the NIC core it runs in (as TransportSink is
// what a transport needs): a buffer pool, core selection for a message the
// host is to receive, and the transport for a message a handler sends.
#pragma once

#include <rte_mbuf.h>

#include <cstdint>

#include "lib/contract/context_table.h"

namespace nanopu {

class SpinSink {
 public:
  virtual ~SpinSink() = default;
  [[nodiscard]] virtual rte_mempool* spin_pool() = 0;
  // A whole received message (MsgMeta filled, dst->packets counting its
  // segments) to core selection, past the handlers.
  virtual bool deliver_to_host(rte_mbuf* msg, ContextEntry* dst) = 0;
  // A one-packet TX message (MsgMeta filled, payload after the frame
  // header's room) to the transport of its destination. False, msg not
  // taken: that transport has no packetization slot free now.
  [[nodiscard]] virtual bool send_from_nic(rte_mbuf* msg) = 0;
  [[nodiscard]] virtual uint64_t spin_now() const = 0;
};

}  // namespace nanopu
