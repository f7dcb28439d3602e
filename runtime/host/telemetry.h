// Live counters through DPDK telemetry: the socket every DPDK program opens
// in its runtime directory, read with DPDK's own dpdk-telemetry.py (the tool
// DPDK users already have) or any client of the documented JSON protocol.
// Commands (docs/observability.md):
//   /nanopu/info          the host: address, port, driver, cores, threads
//   /nanopu/nic           every NIC counter
//   /nanopu/core,N        worker core N's scheduler counters
//   /nanopu/thread,ID     thread ID's counters
// In a process that runs several hosts (tests), they describe the first one
// still running.
#pragma once

namespace nanopu {

class Runtime;

// Makes this host's counters readable (registers the commands on first use).
void telemetry_expose(Runtime* host);
// Before the host's counters go away; a no-op if it was not exposed.
void telemetry_withdraw(const Runtime* host);

}  // namespace nanopu
