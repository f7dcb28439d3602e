// The prototype's test hardware stamped every message to and from context
// 0x1234 (docs/apps.md, "Timestamps for context 0x1234"; the context is the
// application's: nanopu::kTesterStampContext, nanopu/config.h): on ingress, the arrival
// cycle in the message's last 4 bytes; on egress, [timestamp, latency] in
// its last 8 bytes, where timestamp is what the thread left in the last 4
// bytes (an echo leaves the ingress stamp there) and latency the cycles
// since. On nanopu's big-endian wire (docs/wire.md) that is the low half of
// the last word on ingress, and the whole last word, timestamp32 << 32 |
// latency32, on egress: the layout the N-body and Othello replies name.
// Cycles are the model's: the host TSC scaled to the nanoPU's 3.2 GHz, low
// 32 bits. Off unless Config::tester_timestamps (NicParams::stamp_context).
#pragma once

#include <rte_mbuf.h>

#include <cstdint>

namespace nanopu {

inline constexpr double kTesterStampGhz = 3.2;

// The model clock's low 32 bits at host TSC `tsc`.
[[nodiscard]] uint32_t tester_cycle(uint64_t tsc, uint64_t tsc_hz);

// A received message (payload from each segment's start) of `len` bytes:
// writes `cycle` into its last 4 bytes. False if it is shorter than 4 bytes
// or they straddle two segments (left as they are).
bool stamp_rx(rte_mbuf* msg, uint32_t len, uint32_t cycle);

// A message to send (tx_message.h layout) of `len` bytes: reads the
// timestamp in its last 4 bytes and writes [timestamp, cycle - timestamp]
// into its last 8. False if it is shorter than 8 bytes or they straddle.
bool stamp_tx(rte_mbuf* msg, uint32_t len, uint32_t cycle);

}  // namespace nanopu
