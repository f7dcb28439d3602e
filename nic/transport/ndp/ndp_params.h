// NDP's knobs (docs/wire.md: the prototype's defaults were rtt_pkts = 2 and a
// retransmit timeout of 0.7–9.4 µs at 3.2 GHz; a software path's round trip
// is longer, so the default timeout here is larger).
//
// Times are in *ticks* of whatever clock the caller drives the transport
// with: TSC cycles in the live NIC core, picoseconds in the virtual-time
// model (lib/timing/virtual_network.cc). The transport never reads a clock.
#pragma once

#include <cstdint>

namespace nanopu {

struct NdpParams {
  uint16_t rtt_packets = 2;
  uint32_t outbound_slots = 256;     // packetization buffer: messages in flight
  uint32_t reassembly_slots = 256;   // reassembly buffer: messages being received
  // Delivered ids remembered for prototype peers (a hash map, the newest):
  // fewer than the 2^16 message ids of one sender, or a new message whose id
  // has wrapped could be taken for an old one (and dropped).
  uint32_t remembered_completions = 16384;
  // nanopu senders (incarnations) with a delivered-id window of their own
  // (16 KB each, allocated on first delivery; delivered_ids.h).
  uint32_t remembered_senders = 256;
  uint64_t rto_ticks = 0;            // retransmit timeout
  uint32_t max_timeouts = 200;       // then the message is given up (counted)
  // A packet handed to the port is a copy up to this many bytes, a clone
  // (an indirect mbuf sharing the kept original) above: a port that cannot
  // send indirect mbufs gets UINT16_MAX (always a copy).
  uint16_t copy_below_bytes = 256;   // header + up to 192 payload bytes
  uint64_t pull_interval_ticks = 0;    // PULL pacing: one MTU serialization time
  uint64_t reassembly_expiry_ticks = 0;  // free a partial message silent this long
  uint64_t completion_memory_ticks = 0;  // how long a delivered message's id is remembered
  uint16_t incarnation = 1;            // this sender's run (docs/wire.md); never 0
  uint32_t reserved_priority0_slots = 64;  // reassembly slots only priority-0 contexts may use
  uint32_t context_slots = 128;        // reassembly slots one context may hold
  uint32_t context_packets = 4096;     // packets one context may have in the NIC's custody
  uint32_t workers = 1;                // worker cores (for a context's priority)
  // A whole single-packet message from a sender that takes ACKs on DATA
  // (kOptTakesAcks) has its ACK held this long for a DATA packet to the same
  // peer to carry (held_acks.h); 0: every ACK leaves at once, as the prototype.
  uint64_t ack_hold_ticks = 0;
  uint32_t held_acks = 256;            // most ACKs held at once
  // Packets of a multi-packet message from such a sender are acknowledged
  // by one ACK|PULL per message per poll naming every packet received
  // (kOptAckBitmap) instead of one per packet; false: one per packet.
  bool coalesce_acks = false;
};

}  // namespace nanopu
