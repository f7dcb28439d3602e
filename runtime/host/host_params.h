// A validated Config turned into the narrow parameters of each layer below
// the runtime: the EAL, the port, the NIC core and the worker cores. The one
// place where user units (µs, ns, Gb/s) become TSC cycles.
#pragma once

#include "runtime/platform/eal.h"
#include "runtime/platform/port.h"
#include "nanopu/config.h"
#include "nic/nic_core.h"
#include "scheduler/worker.h"

namespace nanopu {

[[nodiscard]] EalParams eal_params(const Config& config);
// How long run() waits for the port's link: Config.link_wait_s, or for
// kLinkWaitAuto kClientLinkWaitS when the port reaches out to its peer and
// without limit (infinity) when it listens for peers (a memif server).
inline constexpr double kClientLinkWaitS = 10;
[[nodiscard]] double link_wait_s(const Config& config, bool port_listens);
[[nodiscard]] PortParams port_params(const Config& config);
// Every transport's parameters (nic/transport/factory.h); incarnation: this
// sender's run (runtime/host/incarnation.h).
[[nodiscard]] TransportConfig transport_config(const Config& config, bool port_sends_indirect_mbufs,
                                               uint16_t incarnation);
// incarnation: as transport_config's; nic_core: which of Config.nic_lcores;
// inboxes: every NIC core's (null with one).
[[nodiscard]] NicParams nic_params(const Config& config, const Port& port, uint16_t incarnation,
                                   uint32_t nic_core = 0,
                                   const std::array<MsgFifo*, kMaxNicCores>& inboxes = {});
// shared_nic: the NIC's poll hook on a shared core, else empty.
[[nodiscard]] sched::WorkerParams worker_params(const Config& config, NicPollHook shared_nic);

}  // namespace nanopu
