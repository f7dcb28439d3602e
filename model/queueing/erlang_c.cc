#include "model/queueing/erlang_c.h"

#include <limits>

namespace nanopu::model {

double erlang_c(uint32_t k, double a) {
  if (k == 0 || a >= k) return 1;
  if (a <= 0) return 0;
  // Erlang B by its recurrence (no factorials to overflow), then C from B.
  double b = 1;
  for (uint32_t i = 1; i <= k; ++i) b = a * b / (i + a * b);
  return k * b / (k - a * (1 - b));
}

double mean_queued(uint32_t k, double a) {
  if (a >= k) return std::numeric_limits<double>::infinity();
  return erlang_c(k, a) * a / (k - a);
}

}  // namespace nanopu::model
