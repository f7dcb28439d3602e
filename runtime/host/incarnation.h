// The sender incarnation a Runtime puts in every DATA packet (docs/wire.md,
// "Sender incarnation"): receivers remember delivered message ids per
// incarnation, so a restarted process whose ids start over is not taken for
// its predecessor and its new messages are not dropped as duplicates.
#pragma once

#include <cstdint>

namespace nanopu {

// Milliseconds of the wall clock modulo 65535, plus 1 (0 means "the peer
// sends none"), and strictly increasing within a process. A process that
// restarts within 65 s of its predecessor's start therefore always differs
// from it; later, the receivers' memory of the predecessor (about
// 4 x peer_dead + rto_max + link_hold + 1 s, 20 s by default) has expired.
[[nodiscard]] uint16_t next_incarnation();

// The same rule for a given clock reading and previous value (tested).
[[nodiscard]] uint16_t incarnation_after(uint64_t wall_ms, uint16_t previous);

}  // namespace nanopu
