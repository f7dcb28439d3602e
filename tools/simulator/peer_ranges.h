// The workload program's --peers (tools/simulator/workload_program.cc): a list of
// addresses and ranges, "10.0.1.1,10.0.2.1-16" (a.b.c.d-N: d to N in the
// last octet), into the hosts a host sends to.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace nanopu::sim {

// Appends every address of `text` but `self` to *out (host order) and
// returns ""; or an error naming the bad item, *out untouched.
[[nodiscard]] std::string parse_peer_ranges(const std::string& text, uint32_t self, std::vector<uint32_t>* out);

}  // namespace nanopu::sim
