// The boot message of the nanoPU's test applications (docs/apps.md): once
// at start, one message of a single zero word, so that an external tester
// knows the service is up before it sends requests. The prototype addressed
// it to IP 0 / context 0 and let its NIC carry it out; nanopu sends it to a
// configurable address, from context kBootContext (0).
#pragma once

#include <cstdint>

#include "nanopu/thread.h"

namespace nanopu::apps {

inline constexpr uint16_t kBootMessageBytes = 8;
inline constexpr uint16_t kBootContext = 0;

// The message itself, from a thread already bound to kBootContext.
inline bool send_boot_message_from_bound(Thread& t, uint32_t ip, uint16_t context) {
  return t.write(AppHeader{ip, context, kBootMessageBytes}.word()) == ApiError::kOk &&
         t.write(0) == ApiError::kOk;
}

// A thread body of its own, for a service that does not serve kBootContext:
// binds it, sends the message, and ends (releasing the context). Spawn it
// after the service threads, so they have bound their contexts by the time
// it goes. Returns whether it was sent. (A service that serves kBootContext
// announces from its own thread: bind_service.h.)
inline bool send_boot_message(Thread& t, uint32_t ip, uint16_t context) {
  if (!t.bind(kBootContext).ok()) return false;
  return send_boot_message_from_bound(t, ip, context);
}

}  // namespace nanopu::apps
