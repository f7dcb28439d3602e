// buggify() for nanopu's own NIC (nanopu/buggify.h): the same draws, its
// sites reported among the runtime's rare paths ("nic.buggify FILE:LINE",
// beside the "nic.*" counters in a campaign's coverage) rather than among
// an author's probes. Internal: services call nanopu::buggify().
#pragma once

#include "nanopu/buggify.h"

namespace nanopu {

[[nodiscard]] inline bool nic_buggify(const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  return buggify_detail::on.load(std::memory_order_relaxed) && buggify_detail::draw(file, line, true);
}

}  // namespace nanopu
