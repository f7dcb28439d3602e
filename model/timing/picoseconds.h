#pragma once
// The model's parameters are nanoseconds; its clock ticks in picoseconds
// (one virtual tick, lib/contract/clock.h kVirtualHz).
#include <cstdint>

namespace nanopu::model {

[[nodiscard]] inline uint64_t ps(double ns) { return static_cast<uint64_t>(ns * 1000 + 0.5); }

}  // namespace nanopu::model
