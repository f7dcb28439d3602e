// Binding a service thread's context, the way every service of apps/ starts:
// one error line on failure, and the boot message (boot_message.h) sent by
// the thread itself when it is the one that binds kBootContext. The
// prototype's test applications listen on context 0 and announce themselves
// from that thread (nanoPU artifact, the packet tester's boot handshake), so
// a separate announcing thread could not bind context 0 for them.
#pragma once

#include <cstdint>

#include "nanopu/thread.h"

namespace nanopu::apps {

// Set once, before threads start: the thread that binds kBootContext sends
// the boot message to ip:context right after it has bound.
void announce_on_bind(uint32_t ip, uint16_t context);

// t.bind(context, priority); on failure one line "nanopu: <who>: <why>" and
// false. The thread binding kBootContext announces when announce_on_bind()
// asked for it (a failed send is reported, not fatal: the service still runs).
[[nodiscard]] bool bind_service(Thread& t, uint16_t context, uint8_t priority, const char* who);

}  // namespace nanopu::apps
