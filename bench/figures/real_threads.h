// The queueing figures' experiments with real threads (nanopu-sim): the
// `service` app's fibers under the HTS stand-in and the NIC's real core
// selection, asked for declared work (Thread::compute, counted time), set
// beside the virtual-time model's declared service times
// (bench/figures/queueing_figures.cc).
#pragma once

#include <string>
#include <vector>

#include "bench/figures/figures.h"

namespace nanopu::figures {

// One core, two threads (contexts 1 and 2, nanopu-server `server_flags`),
// each sent Poisson requests by a client of its own at `rate_each` (flags
// `client_flags[k]`), through a zero-latency switch; 20,000 requests each.
// The two clients' p99 in µs; empty if the run failed (said on stderr).
[[nodiscard]] std::vector<double> two_thread_p99_us(const FigureOptions& o, const std::string& name,
                                                    const std::string& server_flags,
                                                    const std::string (&client_flags)[2], double rate_each);

// Four worker cores, four threads bound to one context, core selection
// `policy` (random, jbsq); 500 ns requests, 0.5% of them 5 us, at `rate`;
// 40,000 requests. The p99 in µs; < 0 if the run failed.
[[nodiscard]] double four_core_p99_us(const FigureOptions& o, const std::string& policy, double rate);

}  // namespace nanopu::figures
