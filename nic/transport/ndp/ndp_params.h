// NDP's knobs (docs/wire.md: the prototype's defaults were rtt_pkts = 2 and a
// retransmit timeout of 0.7–9.4 µs at 3.2 GHz; a software path's round trip
// is longer, so the default timeout here is larger).
//
// Times are in ticks of the caller's clock (common/transport_params.h).
#pragma once

#include <cstdint>

namespace nanopu {

// NDP's own knobs; what it shares with every transport is TransportParams.
struct NdpParams {
  uint16_t rtt_packets = 2;              // packets a message sends before its first PULL
  uint64_t pull_interval_ticks = 0;      // PULL pacing: one MTU serialization time
  // A whole message from a sender that takes ACKs on DATA (kOptTakesAcks;
  // for a multi-packet one also kOptTakesWholeAcks and coalesce_acks) has
  // its ACK held this long for a DATA packet to the same peer to carry
  // (held_acks.h); 0: every ACK leaves at once, as the prototype.
  uint64_t ack_hold_ticks = 0;
  uint32_t held_acks = 256;            // most ACKs held at once
  // Packets of a multi-packet message from such a sender are acknowledged
  // by one ACK|PULL per message per poll naming every packet received
  // (kOptAckBitmap) instead of one per packet; false: one per packet.
  bool coalesce_acks = false;
};

}  // namespace nanopu
