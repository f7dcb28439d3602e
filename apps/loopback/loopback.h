// Loopback services (docs/apps.md; nanoPU Listing 1, §5.2.1) as thread bodies.
#pragma once

#include <cstdint>

#include "apps/paths/message_path.h"
#include "nanopu/thread.h"

namespace nanopu::apps {

enum class LoopbackMode : uint8_t {
  kEcho,       // reply = request, word for word
  kIncrement,  // reply word = request word + 1
  kService,    // load-generator service: spin service_time cycles, then echo
  // The prototype packet tester's layouts (docs/apps.md), type word first;
  // a CONFIG {0, num_msgs, timestamp} is never answered and never ends the
  // thread:
  kServiceTester,  // DATA {1, service_time, padding...}: spin, then echo
  kThroughput,     // DATA {1, ..., timestamp}: echo; the num_msgs-th DATA's
                   // reply carries the CONFIG's timestamp in its last word
};

// Model clock for service_time in cycles (the nanoPU core runs at 3.2 GHz,
// nanoPU §5.1), so a request asks for the same time it would on the nanoPU.
inline constexpr double kServiceCyclesPerNs = 3.2;

// The prototype packet tester's type words.
inline constexpr uint64_t kTesterConfig = 0;
inline constexpr uint64_t kTesterData = 1;

// Binds `context` at `priority` and serves until the runtime stops. In
// kService mode a request with service_time 0 ends the thread (the nanoPU
// load generator's convention). In the tester modes a message of another
// type is echoed unchanged. Returns false if the bind failed.
// With path kMemory the same services run on the traditional path
// (apps/paths/message_path.h): each request copied whole into memory, the
// reply built there and handed over whole.
bool serve_loopback(Thread& t, uint16_t context, uint8_t priority, LoopbackMode mode,
                    MessagePath path = MessagePath::kRegisters);

}  // namespace nanopu::apps

extern "C" {
// nanoPU Listing 1 ported with lnic.h: loopback with increment. Never returns
// while the runtime runs. Defined in C (apps/loopback/lnic_loopback.c).
void nanopu_lnic_loopback_plus1(uint16_t context);
}
