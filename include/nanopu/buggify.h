// BUGGIFY (FoundationDB's, from "Testing Distributed Systems w/
// Deterministic Simulation"): code that can take a rare path — a short
// batch, a retry, a slow step, a queue that reports full — takes it when
// buggify() says so, so that a fault campaign reaches it without waiting
// for the machine to produce it:
//
//   if (nanopu::buggify()) return retry_later();   // as if the queue were full
//
// Live, it is always false (one relaxed load). In a simulated run with
// buggify on (`dst`, and `sim --buggify`), each call site (its file and
// line) is on in a quarter of the seeds and, when on, says yes to a
// quarter of the calls, all drawn from the run's seed: the same seed takes
// the same paths. Each site that said yes is reported as a probe
// ("buggify FILE:LINE", nanopu/probe.h). A site's draws are a stream per
// simulated host, so a run is the same on any number of simulation threads.
//
// nanopu's own NIC has sites too (issue 71): a message refused as if its
// context's buffers were full, a packet or a control frame left unsent
// for want of a buffer, a retransmission timer that fires a period late —
// each a path the transport must recover from without the wire's help.
#pragma once

#include <atomic>
#include <cstdint>

namespace nanopu {

namespace buggify_detail {
extern std::atomic<bool> on;
bool draw(const char* file, int line, bool nic = false);
}  // namespace buggify_detail

// The call site by GCC's and Clang's __builtin_FILE/__builtin_LINE, which
// a default argument takes at the caller: std::source_location needs a
// Clang newer than Debian 12's. Inline: live, one relaxed load.
[[nodiscard]] inline bool buggify(const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  return buggify_detail::on.load(std::memory_order_relaxed) && buggify_detail::draw(file, line);
}

// For a harness (a simulated run sets it around itself): on for a run of
// this seed, or off.
void set_buggify(bool on, uint64_t seed = 0);

}  // namespace nanopu
