#include "model/queueing/erlang_c.h"

#include <cmath>
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

double max_load_within(uint32_t k, double service_ns, double slo_ns, double q) {
  if (k == 0 || !(service_ns > 0) || !(slo_ns > service_ns)) return 0;
  const double t = (slo_ns - service_ns) / service_ns;  // the wait allowed, in services
  const auto late = [&](double a) { return erlang_c(k, a) * std::exp(-(k - a) * t); };
  double lo = 0, hi = k;  // late() rises with a: bisect to a part in 1e9
  for (int i = 0; i < 60; ++i) {
    const double mid = (lo + hi) / 2;
    (late(mid) <= 1 - q ? lo : hi) = mid;
  }
  return lo;
}

}  // namespace nanopu::model
