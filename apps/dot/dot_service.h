// The dot-product service as a thread body (nanoPU OSDI'21 §5.2.1,
// Figure 6; layouts in dot_protocol.h and docs/apps.md). Two ways, as the
// paper compares them:
//   kOptimal  multiplies and accumulates each word as it is read from the
//             RX FIFO (the register file), nothing copied;
//   kNaive    copies the whole message into memory first, then computes.
#pragma once

#include <cstdint>

#include "nanopu/thread.h"

namespace nanopu::apps {

enum class DotVariant : uint8_t { kOptimal, kNaive };

// The service's declared work beyond moving its words through the FIFOs,
// for the timing model's modelled column (nanopu's estimates at the
// prototype's 3.2 GHz, not measured on nanoPU hardware): per index, an L1
// load of the weight and a multiply-add on the in-order core, 4 cycles;
// kNaive also copies each message word to memory and loads it back, 2
// cycles per word (as the MICA service's naive copy, apps/mica/kv_service.h).
inline constexpr double kDotCyclesPerIndex = 4;
inline constexpr double kDotNaiveCopyCyclesPerWord = 2;

struct DotStats {
  uint64_t requests = 0;  // answered with a result
  uint64_t configs = 0;   // CONFIG messages (not answered)
  uint64_t errors = 0;    // answered with an error
  uint64_t dropped = 0;   // too short to hold a type word
};

// Binds `context` at `priority` and answers until the runtime stops;
// false if the bind failed.
bool serve_dot(Thread& t, uint16_t context, uint8_t priority, DotVariant variant, DotStats* stats);

// The reply to one request's payload words (type word first); answer
// false for a CONFIG or a message too short to hold a type. The naive
// path, without a Thread, for the fuzzer and unit tests.
struct DotReply {
  bool answer = false;
  uint64_t words[4] = {};
};
[[nodiscard]] DotReply dot_reply(const uint64_t* words, uint32_t n, DotStats* stats);

}  // namespace nanopu::apps
