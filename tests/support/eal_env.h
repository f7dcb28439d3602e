// Test support: one DPDK EAL per test process (DPDK initialises once), and
// pairs of ports joined back to back by rte_rings (net_ring PMD), so two
// emulated hosts can talk inside one process.
#pragma once

#include <cstdint>
#include <string>

#include "nanopu/config.h"

namespace nanopu::testing {

// A config for an in-process test host on `port_id`, sharing lcore 0.
[[nodiscard]] Config host_config(uint16_t port_id, uint32_t ip);

struct PortPair {
  uint16_t a = 0;
  uint16_t b = 0;
  std::string tag;  // names the rings joining them
};
// A host with a dedicated NIC lcore (0) and `workers` worker lcores (1..2).
[[nodiscard]] Config dedicated_config(uint16_t port_id, uint32_t ip, uint32_t workers);

// Two net_ring ports: what a sends, b receives, and the other way round.
[[nodiscard]] PortPair make_ring_pair();

// A new port on a's end of the pair (a's own was closed with its host): a
// restarted host on the same wire. 0xffff if it cannot be made.
[[nodiscard]] uint16_t reopen_a(const PortPair& p);

// One net_ring port whose transmitted frames come back to itself: a host
// that can message its own contexts.
[[nodiscard]] uint16_t make_loop_port();

// Configures and starts `port` with one queue pair, for raw injection.
void start_raw_port(uint16_t port);
// Stops and closes a port started by start_raw_port().
void close_raw_port(uint16_t port);

// Sends raw frames out of `port` (test injection) and receives them.
bool send_frame(uint16_t port, const uint8_t* data, size_t len);
size_t recv_frames(uint16_t port, std::string* frames, size_t max);

}  // namespace nanopu::testing
