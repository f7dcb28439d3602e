// Wing & Gong's search for a linearization of one key's operations, with
// Lowe's memoisation of (operations linearized, state), as Porcupine runs
// it: the operations' invokes and completions in time order as a linked
// list; an invoke is linearized (lifted out with its completion) when the
// model allows it and the configuration is new; a completion reached
// before its operation is linearized undoes the last linearization and
// tries the next candidate. Operations that may not have happened (info)
// complete at the end of time and need not be linearized.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "nanopu/lincheck.h"
#include "runtime/check/models.h"

namespace nanopu::lincheck {

// What every key's search may still spend.
struct Budget {
  std::chrono::steady_clock::time_point deadline;
  uint64_t states_left = 0;
  uint64_t states_used = 0;
};

struct KeyVerdict {
  Verdict verdict = Verdict::kLinearizable;
  std::vector<size_t> window;  // kNotLinearizable: operations (indices) that cannot be ordered
  std::string why;
};

[[nodiscard]] KeyVerdict search(const std::vector<Operation>& ops, const Model& m, Budget& budget);

}  // namespace nanopu::lincheck
