#include "nic/core_select/core_selector.h"

namespace nanopu {

int CoreSelector::select(const uint32_t* outstanding, const bool* bound, size_t bindings,
                         uint64_t hash, int prefer) const {
  switch (policy_) {
    case CoreSelectPolicy::kJbsq: {
      // nanoPU §3.2: forward to the core with the smallest count if below n.
      int best = kHold;
      uint32_t best_count = UINT32_MAX;
      size_t count = 0;
      for (size_t i = 0; i < bindings; ++i) {
        if (!bound[i]) continue;
        ++count;
        if (outstanding[i] < best_count) {
          best = static_cast<int>(i);
          best_count = outstanding[i];
        }
      }
      if (prefer >= 0 && static_cast<size_t>(prefer) < bindings && bound[prefer] &&
          outstanding[prefer] == best_count)
        best = prefer;
      return best_count < (count == 1 ? single_core_n_ : n_) ? best : kHold;
    }
    case CoreSelectPolicy::kRss:
    case CoreSelectPolicy::kRandom: {  // the caller's hash: the source's, or a draw per message
      size_t count = 0;
      for (size_t i = 0; i < bindings; ++i) count += bound[i];
      if (count == 0) return kHold;
      size_t k = hash % count;
      for (size_t i = 0; i < bindings; ++i)
        if (bound[i] && k-- == 0) return static_cast<int>(i);
      return kHold;
    }
    case CoreSelectPolicy::kStatic:
      for (size_t i = 0; i < bindings; ++i)
        if (bound[i]) return static_cast<int>(i);
      return kHold;
  }
  return kHold;
}

}  // namespace nanopu
