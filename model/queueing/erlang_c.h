// Erlang's C formula and the mean queue it gives an M/M/k system: what
// NEBULA (ISCA'20) §IV-C sizes its receive buffers from ("E[N̂q] =
// C_k(A) · A / (k − A)"; a 64-core server at A = 63 has E[N̂q] = 54, and
// 10 × E[N̂q] slots are provisioned). Closed forms; *modelled*.
#pragma once

#include <cstdint>

namespace nanopu::model {

// The probability that an arrival waits in an M/M/k queue at offered load
// a (in servers: λ/μ, below k). 1 when a >= k.
[[nodiscard]] double erlang_c(uint32_t k, double a);

// E[N̂q]: the mean number waiting, C_k(A) · A / (k − A); infinite when a >= k.
[[nodiscard]] double mean_queued(uint32_t k, double a);

// The highest offered load A (in servers, below k) at which requests wait
// as in an M/M/k queue of mean service `service_ns` and, each then served
// in that mean, a fraction q are answered within `slo_ns`: P(W > slo −
// service) = C_k(A) · e^(−(k − A)(slo − service)/service) <= 1 − q. An
// approximation (narrow services, as NEBULA's object stores): a true
// M/M/k's exponential service has a tail of its own. The load NEBULA's
// §IV-C sizes its buffer at. 0 when slo_ns <= service_ns.
[[nodiscard]] double max_load_within(uint32_t k, double service_ns, double slo_ns, double q = 0.99);

}  // namespace nanopu::model
