// Ports made of rte_rings (the net_ring PMD, rte_eth_from_rings): two hosts
// joined back to back inside one process, or one port that hears itself.
// Used by in-process tests and benchmarks; needs an initialised EAL.
#pragma once

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"

namespace nanopu {

struct RingPortPair {
  uint16_t a = 0;  // what a sends, b receives
  uint16_t b = 0;  // and the other way round
};

// `tag` keeps ring and device names unique in the process; ring_size is a
// power of two (each direction's capacity in packets).
[[nodiscard]] absl::StatusOr<RingPortPair> make_ring_port_pair(const std::string& tag,
                                                               unsigned ring_size = 4096);

// One port whose transmitted frames come back to itself.
[[nodiscard]] absl::StatusOr<uint16_t> make_ring_loop_port(const std::string& tag,
                                                           unsigned ring_size = 4096);

}  // namespace nanopu
