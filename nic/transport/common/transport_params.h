// What every NIC-terminated transport shares: the buffers the hardware has
// once whatever the protocol (packetization and reassembly slots, their
// shares per context, the delivered-id memory, docs/design.md §2,
// "Transports"), the sender's run and the retransmission limits. Each
// protocol's own knobs are its own struct (NdpParams, HomaParams).
//
// Times are in *ticks* of whatever clock the caller drives the transport
// with: TSC cycles in the live NIC core, picoseconds in the virtual-time
// model (model/queueing/). A transport never reads a clock.
#pragma once

#include <cstdint>

namespace nanopu {

struct TransportParams {
  uint32_t outbound_slots = 256;     // packetization buffer: messages in flight
  uint32_t reassembly_slots = 256;   // reassembly buffer: messages being received
  // Delivered ids remembered for prototype peers (a hash map, the newest):
  // fewer than the 2^16 message ids of one sender, or a new message whose id
  // has wrapped could be taken for an old one (and dropped).
  uint32_t remembered_completions = 16384;
  // nanopu senders (incarnations) with a delivered-id window of their own
  // (16 KB each, allocated on first delivery; delivered_ids.h).
  uint32_t remembered_senders = 256;
  uint64_t rto_ticks = 0;            // retransmit timeout (the floor of the measured one)
  uint64_t rto_max_ticks = 0;        // the most a timeout grows to (measured or backed off); 0: 64 x rto
  // A message is given up when its peer has sent nothing for this long
  // (peer_liveness.h): a slow peer is not a dead one. 0: 1000 x rto.
  uint64_t peer_dead_ticks = 0;
  // A packet handed to the port is a copy up to this many bytes, a clone
  // (an indirect mbuf sharing the kept original) above: a port that cannot
  // send indirect mbufs gets UINT16_MAX (always a copy).
  uint16_t copy_below_bytes = 256;   // header + up to 192 payload bytes
  // The port may be handed the kept packet itself, one reference more,
  // while nobody else holds it (packet_for_port); false: copies and clones.
  bool port_takes_kept = false;
  uint64_t reassembly_expiry_ticks = 0;  // free a partial message silent this long
  uint64_t completion_memory_ticks = 0;  // how long a delivered message's id is remembered
  uint16_t incarnation = 1;            // this sender's run (docs/wire.md); never 0
  uint32_t reserved_priority0_slots = 64;  // reassembly slots only priority-0 contexts may use
  uint32_t context_slots = 128;        // reassembly slots one context may hold
  uint32_t context_packets = 4096;     // packets one context may have in the NIC's custody
  uint32_t workers = 1;                // worker cores (for a context's priority)

  [[nodiscard]] uint64_t rto_max() const { return rto_max_ticks != 0 ? rto_max_ticks : rto_ticks << 6; }
  [[nodiscard]] uint64_t peer_dead() const { return peer_dead_ticks != 0 ? peer_dead_ticks : rto_ticks * 1000; }
};

}  // namespace nanopu
