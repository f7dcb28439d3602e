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
#include "nic/transport/common/held_acks.h"
#include "nic/transport/common/sender_shell.h"
#include "nic/transport/common/transport_params.h"
#include "nic/transport/common/transport_peers.h"
#include "nic/transport/homa/homa_params.h"
#include "nic/transport/transport.h"

namespace nanopu {

class HomaSender final : public SenderShell<HomaSender, HomaParams, HomaHeldAcks> {
 public:
  // peers: the transport's (transport_shell.h), shared with its receiver:
  // runs, liveness, round trips, and the receiver's ACKs waiting for a
  // DATA packet to carry them.
  HomaSender(const TransportParams& c, const HomaParams& p, rte_mempool* pool, NicCounters* counters,
             TransportPeers<HomaHeldAcks>* peers);

  // Scheduled packets (SRPT order, tx_packets_per_poll) and expired timers.
  void tick(uint64_t now, TransportSink& sink);
  [[nodiscard]] uint64_t next_deadline() const { return std::min(timers_.next_deadline(), ready_at()); }
  // tick() does nothing before then: packets ready (when the port has room
  // for them), the next timer scan.
  [[nodiscard]] uint64_t next_tick_work() const { return std::min(timers_.next_scan(), ready_at()); }

 private:
  friend class SenderShell<HomaSender, HomaParams, HomaHeldAcks>;
  // A control packet for one of our messages (SenderShell::on_control).
  void handle_control(const wire::FrameHeader& f, uint64_t now, TransportSink& sink);
  // A message just taken into slot: its unscheduled packets leave, its timer runs.
  void start(uint32_t slot, TransportSink& sink);
  // Its timer fired and its peer is not dead: wait, probe or resend.
  void on_timeout(uint32_t slot, OutboundMessage& m, uint64_t now, TransportSink& sink);
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
  // Its timer stopped and out of the ready list.
  void unschedule(uint32_t slot);
  void release(uint32_t slot);
  void give_up(uint32_t slot, TxFailureReason why, TransportSink& sink);
  void reply_busy(const wire::FrameHeader& h, TransportSink& sink) const;

  std::vector<uint32_t> ready_;   // slots with packets to send (unordered)
  std::vector<uint8_t> is_ready_; // per slot: in ready_
  uint64_t link_idle_ = 0;  // when the data handed to the port has left it, as the link's rate says
};

}  // namespace nanopu
