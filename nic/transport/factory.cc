#include "nic/transport/factory.h"

#include "nic/transport/homa/homa_transport.h"
#include "nic/transport/ndp/ndp_transport.h"

namespace nanopu {

std::unique_ptr<Transport> make_transport(uint8_t protocol, const TransportConfig& c,
                                          rte_mempool* pool, NicCounters* counters) {
  switch (protocol) {
    case wire::kIpProtoNdp:
      return std::make_unique<NdpTransport>(c.common, c.ndp, pool, counters);
    case wire::kIpProtoHoma:
      return std::make_unique<HomaTransport>(c.common, c.homa, pool, counters);
    default:
      return nullptr;
  }
}

}  // namespace nanopu
