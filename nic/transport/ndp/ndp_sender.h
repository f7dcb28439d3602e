// NDP sender (WIRE.md "Sender"): the first rtt_pkts packets go at once, later
// ones on PULL credit (credit := pull_offset); ACK marks a packet delivered;
// NACK|PULL (trimmed) sends it again at once; a bare NACK (receiver out of
// slots) waits for the timer; a per-message timer, backed off while no
// progress is made, sends every unacknowledged packet again. The message's
// slot and packets are freed when all are acknowledged.
//
// Retransmit deadlines live in a flat array swept by one periodic rte_timer
// (every rto/4 while anything is in flight) instead of one rte_timer per
// message: arming and cancelling an rte_timer cost ~50 ns each
// (nanopu-bench-nic-micro), paid twice per message on the hot path, while a
// sweep of 256 deadlines costs about that once per period. A retransmission
// goes at most rto/4 late.
#pragma once

#include <cstdint>
#include <vector>

#include "nanopu/stats.h"
#include "nic/packetizer/packetization_buffer.h"
#include "nic/timers/timer_module.h"
#include "nic/transport/ndp/ndp_params.h"
#include "nic/transport/transport.h"

namespace nanopu {

class NdpSender {
 public:
  NdpSender(const NdpParams& p, rte_mempool* pool, NicCounters* counters);

  [[nodiscard]] uint32_t free_slots() const { return buffer_.free_slots(); }
  // A complete message (mbuf chain, one segment per packet). Needs a free slot.
  void send_message(rte_mbuf* msg, uint64_t now, TransportSink& sink);
  // ACK / NACK / PULL for one of our messages.
  void on_control(const wire::FrameHeader& h, uint64_t now, TransportSink& sink);
  // Runs the retransmit sweep when it is due.
  void tick(TransportSink& sink);
  [[nodiscard]] uint32_t in_flight() const { return buffer_.capacity() - buffer_.free_slots(); }

 private:
  static void on_sweep(void* self, uint32_t unused);
  void on_timeout(uint32_t slot, uint64_t now);
  void pump(uint32_t slot, TransportSink& sink);
  void send_packet(uint32_t slot, uint8_t index, TransportSink& sink);
  void arm(uint32_t slot, uint64_t now);
  void complete(uint32_t slot);

  NdpParams p_;
  rte_mempool* pool_;  // for the clones handed to the port
  NicCounters* counters_;
  PacketizationBuffer buffer_;
  std::vector<uint64_t> deadline_;  // per slot: retransmit when the TSC passes it (0: none)
  TimerModule sweep_timer_;          // one timer: the periodic sweep of deadline_
  bool sweep_armed_ = false;
  uint64_t sweep_period_tsc_;
  uint16_t next_msg_id_ = 0;        // tx_msg_id, wraps at 2^16 (WIRE.md)
  TransportSink* timer_sink_ = nullptr;  // the NIC core this sender belongs to
};

}  // namespace nanopu
