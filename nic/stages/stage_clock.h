// Where a NIC poll's time goes, stage by stage (issue 69 item 7). Compiled
// in only with the CMake option NANOPU_STAGE_CLOCK: each stage boundary is a
// TSC read (~10 ns on this VM), a cost a diagnostic build may pay and the
// normal one must not. Off, every call is empty and the counters stay 0.
// nanopu-bench-e2e prints the ticks per request of each stage
// (bench/README.md, "Where a request's time goes").
#pragma once

#include <rte_cycles.h>

#include <array>
#include <cstdint>
#include <string_view>

namespace nanopu {

// In poll order. kWorkers: a shared core's workers, run between the
// receive half and the finish half (NicCore::poll_receive/poll_finish).
enum class NicStage : uint8_t {
  kRx,            // the port's receive burst (and the fault injector, the dispatch to NIC cores)
  kClassify,      // pipeline and the transports' receive side, delivery staged
  kDeliver,       // the global queues served and the staged messages pushed to the threads
  kWorkers,       // a shared core's workers (between the two halves of a poll)
  kGather,        // messages taken from the threads' TX FIFOs (inline ones framed)
  kSend,          // the transports' send side: slots, headers, retransmission state
  kTick,          // timers, the workers' watch, the link
  kTx,            // the port's transmit bursts
  kCount
};
inline constexpr size_t kNicStages = static_cast<size_t>(NicStage::kCount);

[[nodiscard]] constexpr std::string_view nic_stage_name(size_t i) {
  constexpr std::array<std::string_view, kNicStages> kNames = {
      "rx burst", "classify+transport in", "deliver", "workers", "gather", "transport out", "tick", "tx burst"};
  return i < kNicStages ? kNames[i] : "?";
}

#ifdef NANOPU_STAGE_CLOCK
inline constexpr bool kStageClock = true;
#else
inline constexpr bool kStageClock = false;
#endif

// One NIC core's: begin() at a poll's start, mark(s) at the end of stage s
// (the time since the last mark or begin goes to s), end() at its end. A
// poll nested in another's workers stage (a shared core's thread polls the
// NIC from its safe points) charges the workers' time so far to kWorkers
// and its own to its stages.
class StageClock {
 public:
  void begin() {
    if constexpr (kStageClock) {
      if (depth_++ > 0)
        mark(NicStage::kWorkers);
      else
        last_ = rte_rdtsc();
    }
  }
  void end() {
    if constexpr (kStageClock) --depth_;
  }
  void mark(NicStage s) {
    if constexpr (kStageClock) {
      const uint64_t now = rte_rdtsc();
      ticks_[static_cast<size_t>(s)] += now - last_;
      last_ = now;
    }
  }
  [[nodiscard]] const std::array<uint64_t, kNicStages>& ticks() const { return ticks_; }

 private:
  uint64_t last_ = 0;
  uint32_t depth_ = 0;
  std::array<uint64_t, kNicStages> ticks_{};
};

}  // namespace nanopu
