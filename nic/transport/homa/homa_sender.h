// Homa sender (Homa, SIGCOMM'18, §3.2–§3.7; docs/wire.md "Homa behaviour"):
// the first rtt_bytes of a message leave at once at the unscheduled priority
// its length earns; the rest only as GRANTs allow, at the priority each
// grant names, the granted packets of all messages put on the wire fewest
// remaining bytes first (SRPT at the sender, §3.5). ACK (the whole message
// delivered) frees the slot. RESEND sends a range again, or is answered
// BUSY while shorter messages hold the wire. A timer (the peer's measured
// timeout, rtt_estimator.h) probes a receiver that has gone silent with the
// first packet — one message per silent peer per timeout, not each
// (peer_liveness.h) — and gives the message up when the peer has been
// silent for peer_dead: reported to the sending thread, never lost in silence.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "nanopu/stats.h"
#include "nic/packetizer/packetization_buffer.h"
#include "nic/timers/timer_module.h"
#include "nic/transport/common/held_acks.h"
#include "nic/transport/common/id_window.h"
#include "nic/transport/common/peer_liveness.h"
#include "nic/transport/common/peer_runs.h"
#include "nic/transport/common/rtt_estimator.h"
#include "nic/transport/common/transport_params.h"
#include "nic/transport/common/transport_peers.h"
#include "nic/transport/homa/homa_params.h"
#include "nic/transport/transport.h"

namespace nanopu {

class HomaSender {
 public:
  // peers: the transport's (transport_shell.h), shared with its receiver:
  // runs, liveness, round trips, and the receiver's ACKs waiting for a
  // DATA packet to carry them.
  HomaSender(const TransportParams& c, const HomaParams& p, rte_mempool* pool, NicCounters* counters,
             TransportPeers<HomaHeldAcks>* peers);

  // Slots free and not promised to a message waiting for its id (id_window.h).
  [[nodiscard]] uint32_t free_slots() const { return buffer_.free_slots() - ids_.held(); }
  void send_message(rte_mbuf* msg, uint64_t now, TransportSink& sink);
  void on_control(const wire::FrameHeader& h, uint64_t now, TransportSink& sink);
  // Scheduled packets (SRPT order, tx_packets_per_poll) and expired timers.
  void tick(uint64_t now, TransportSink& sink);
  // Taken and not done: in a slot, or held for an id.
  [[nodiscard]] uint32_t in_flight() const { return buffer_.capacity() - free_slots(); }
  [[nodiscard]] uint64_t next_deadline() const { return std::min(timers_.next_deadline(), ready_at()); }
  // tick() does nothing before then: packets ready (when the port has room
  // for them), the next timer scan.
  [[nodiscard]] uint64_t next_tick_work() const { return std::min(timers_.next_scan(), ready_at()); }
  // peer_ip spoke after an unanswered probe: its messages retry at the next tick.
  void resume(uint32_t peer_ip, uint64_t now);

 private:
  static void on_timer(void* self, uint32_t slot, uint64_t now);
  void handle_control(const wire::FrameHeader& f, uint64_t now, TransportSink& sink);
  // A message just taken into slot: its unscheduled packets leave, its timer runs.
  void start(uint32_t slot, TransportSink& sink);
  // The messages held for their receiver's id window that may go now.
  void start_released(TransportSink& sink);
  void send_packet(uint32_t slot, uint8_t index, TransportSink& sink);
  // The sender's queue at the port is at its limit (HomaParams::max_nic_queue_ticks).
  [[nodiscard]] bool port_full() const {
    return p_.mtu_frame_ticks != 0 && link_idle_ > now_ + p_.max_nic_queue_ticks;
  }
  // When a ready packet may go: when the port is below its limit again (at
  // or before now: at once); max() with none ready.
  [[nodiscard]] uint64_t ready_at() const {
    if (ready_.empty()) return UINT64_MAX;
    return link_idle_ > p_.max_nic_queue_ticks ? link_idle_ - p_.max_nic_queue_ticks : 0;
  }
  // Packets the slot may send now: granted and never sent, or asked again.
  [[nodiscard]] uint32_t ready_packets(const OutboundMessage& m) const;
  [[nodiscard]] uint32_t remaining_bytes(const OutboundMessage& m) const;
  void make_ready(uint32_t slot);
  void send_scheduled(TransportSink& sink);
  void arm(uint32_t slot, uint64_t now);
  // Its timer stopped and out of the ready list.
  void unschedule(uint32_t slot);
  void release(uint32_t slot);
  void give_up(uint32_t slot, TxFailureReason why, TransportSink& sink);
  void reply_busy(const wire::FrameHeader& h, TransportSink& sink) const;

  TransportParams c_;
  HomaParams p_;
  rte_mempool* pool_;
  NicCounters* counters_;
  PacketizationBuffer buffer_;
  IdWindow ids_{buffer_};  // tx_msg_id per receiver (docs/wire.md "Message ids")
  TimerModule timers_;
  const PeerRuns* peers_;
  RttEstimator* rtt_;
  PeerLiveness* live_;
  HomaHeldAcks* held_;
  std::vector<uint32_t> ready_;   // slots with packets to send (unordered)
  std::vector<uint8_t> is_ready_; // per slot: in ready_
  uint64_t now_ = 0;  // the time of the current call (send_message, on_control, tick)
  uint64_t link_idle_ = 0;  // when the data handed to the port has left it, as the link's rate says
  TransportSink* timer_sink_ = nullptr;
};

}  // namespace nanopu
