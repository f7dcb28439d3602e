// The transports a NIC core runs, made by protocol: the one place that
// names them all. The NIC core, the virtual-time fabric and the runtime's
// parameters reach a transport only through Transport (transport.h) and this
// factory; a third transport adds its folder, its params to TransportConfig
// and a case to make_transport().
#pragma once

#include <rte_mempool.h>

#include <array>
#include <cstdint>
#include <memory>

#include "nanopu/stats.h"
#include "nic/transport/common/transport_params.h"
#include "nic/transport/homa/homa_params.h"
#include "nic/transport/ndp/ndp_params.h"
#include "nic/transport/transport.h"

namespace nanopu {

// Every transport's parameters: what they share, and each one's own.
struct TransportConfig {
  TransportParams common;
  NdpParams ndp;
  HomaParams homa;
};

// The IPv4 protocol numbers of the transports every NIC core runs, in the
// order of its table (docs/design.md §2, "Transports").
inline constexpr std::array<uint8_t, 2> kTransportProtocols = {wire::kIpProtoNdp, wire::kIpProtoHoma};

// Where `protocol` is in kTransportProtocols (0 for another number: the
// pipeline passes none).
[[nodiscard]] constexpr size_t transport_index(uint8_t protocol) {
  for (size_t i = 0; i < kTransportProtocols.size(); ++i)
    if (kTransportProtocols[i] == protocol) return i;
  return 0;
}

// The transport speaking `protocol` (one of kTransportProtocols); null for
// another number.
[[nodiscard]] std::unique_ptr<Transport> make_transport(uint8_t protocol, const TransportConfig& c,
                                                        rte_mempool* pool, NicCounters* counters);

}  // namespace nanopu
