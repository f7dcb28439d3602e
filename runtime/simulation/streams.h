// A simulated run's random streams: each drawn from its own seed,
// stream_seed(the run's seed, the stream's number) (nanopu/seeded_draw.h),
// so that no stream of one seed is another's, nor any of a neighbouring
// seed's (FoundationDB's sim2 and TigerBeetle's VOPR derive theirs from one
// seed alike). The numbers have this one home, so no two collide.
#pragma once

#include <cstdint>

namespace nanopu::sim {

inline constexpr uint64_t kScheduleStream = 1;        // a campaign's cuts, crashes, transports
inline constexpr uint64_t kDstCaseStream = 2;         // + the service: nanopu-dst's cluster and load
inline constexpr uint64_t kBuggifyStream = 16;        // nanopu/buggify.h's sites (each mixed in again)
inline constexpr uint64_t kWireStream = 1u << 16;     // + the host's index: its wire's faults
inline constexpr uint64_t kHostStream = 2u << 16;     // + the host's index: its --seed
inline constexpr uint64_t kBootStream = 3u << 16;     // + the host's index: when it boots
inline constexpr uint64_t kRestartStream = 4u << 16;  // + the restart's number: the new run's seed
inline constexpr uint64_t kPowerLossStream = 5u << 16;  // + the crash's index: what its durable files keep
inline constexpr uint64_t kClockStream = 6u << 16;      // + the host's index: its clock's drift (0: whether any)
inline constexpr uint64_t kCatchUpStream = 7u << 16;    // a restarted server crashed again during its catch-up

}  // namespace nanopu::sim
