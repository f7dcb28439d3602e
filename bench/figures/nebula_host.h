// One of NEBULA's (ISCA'20) systems on a modelled server at a load: the
// memory model (model/memory/memory_system.h) gives the DRAM's load and
// each RPC's waits, and the virtual-time host (model/queueing/
// virtual_host.h, the runtime's core-selection policies) serves RPCs in
// that service time. Shared by the §III figure (Fig. 2) and the §VII
// evaluation (Fig. 6-8, Table III). Every number is *modelled*.
#pragma once

#include <cstdint>
#include <limits>

#include "bench/figures/figures.h"
#include "model/memory/memory_system.h"
#include "model/queueing/virtual_host.h"

namespace nanopu::figures {

// Load balancing × receive buffers (§III, §VI).
struct NebulaSystem {
  const char* name;
  CoreSelectPolicy policy;  // kRandom: uniform spreading, the best case for RSS and SRQ (§III, §VI)
  uint32_t jbsq_n;  // RPCValet one queued at each core; NEBULA two (§V-E: time to prefetch)
  model::BufferProvisioning buffers;
};
inline constexpr NebulaSystem kRss{"RSS", CoreSelectPolicy::kRandom, 1,
                                   model::BufferProvisioning::kPerConnection};
inline constexpr NebulaSystem kRpcValet{"RPCValet", CoreSelectPolicy::kJbsq, 1,
                                        model::BufferProvisioning::kPerConnection};
inline constexpr NebulaSystem kSrq{"SRQ", CoreSelectPolicy::kRandom, 1,
                                   model::BufferProvisioning::kIdealReuse};
inline constexpr NebulaSystem kNebula{"NEBULA", CoreSelectPolicy::kJbsq, 2,
                                      model::BufferProvisioning::kSharedBounded};

// A server, a workload and how its RPCs' service times vary.
struct NebulaServer {
  model::MemorySystem memory;
  model::RpcMemoryDemand rpc;
  model::ServiceTime::Kind service_kind = model::ServiceTime::Kind::kFixed;
  double queued_delta_ns = 0;  // model::ServiceTime's prefetch terms (Fig. 8)
  double after_ns = 0;
};

struct NebulaPoint {
  double p99_ns = std::numeric_limits<double>::infinity();
  model::LoadedMemory memory;
};

// System y on server s offered `rps` requests a second.
[[nodiscard]] NebulaPoint nebula_at(const FigureOptions& o, const NebulaServer& s,
                                    const NebulaSystem& y, double rps);

// The highest rate whose p99 meets slo_ns (bisection between 5 % and 100 %
// of the cores' capacity at the RPC's unloaded service time).
[[nodiscard]] double nebula_max_rps(const FigureOptions& o, const NebulaServer& s,
                                    const NebulaSystem& y, double slo_ns);

}  // namespace nanopu::figures
