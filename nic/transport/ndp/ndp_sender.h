// NDP sender (docs/wire.md "Sender"): the first rtt_pkts packets go at once, later
// ones on PULL credit (credit := pull_offset); ACK marks a packet delivered;
// NACK|PULL (trimmed, or refused and now asked for) sends it again at once;
// a bare NACK (receiver out of room) waits for the timer or that NACK|PULL; a per-message timer, backed off while no
// progress is made, sends every unacknowledged packet again. The message's
// slot and packets are freed when all are acknowledged.
//
// Time comes in as arguments (TSC cycles live, picoseconds in virtual time).
// The retransmit timers are the timer module's (scanned every rto/4: a
// retransmission goes at most rto/4 late). The timeout follows each peer's
// measured round trips (rtt_estimator.h), from rto_ticks up to rto_max. A
// silent peer gets one probe per timeout, not every message's packets, and a
// message is given up when its peer has been silent for peer_dead
// (peer_liveness.h); when the peer speaks again its messages resume at once.
#pragma once

#include <cstdint>

#include "nanopu/stats.h"
#include "nic/packetizer/packetization_buffer.h"
#include "nic/transport/common/held_acks.h"
#include "nic/transport/common/send_stamp.h"
#include "nic/transport/common/sender_shell.h"
#include "nic/transport/common/transport_params.h"
#include "nic/transport/common/transport_peers.h"
#include "nic/transport/ndp/ndp_params.h"
#include "nic/transport/transport.h"

namespace nanopu {

class NdpSender final : public SenderShell<NdpSender, NdpParams, HeldAcks> {
 public:
  // peers: the transport's (transport_shell.h), shared with its receiver:
  // the receivers' runs as last heard, which answer (the transport feeds
  // it every packet), their round trips, and the ACKs this host's
  // receiver holds for DATA packets to carry.
  NdpSender(const TransportParams& c, const NdpParams& p, rte_mempool* pool, NicCounters* counters,
            TransportPeers<HeldAcks>* peers);

  // The ACK a DATA packet carries (kOptCarriesAck): its whole message
  // acknowledged. A one-packet message's completes here, without the ACK's
  // header built (held_acks.h, HeldAckQueue::carried); any other goes
  // through on_control as that header.
  void on_carried_ack(const wire::FrameHeader& data, uint64_t now, TransportSink& sink);
  // Runs expired retransmit timers.
  void tick(uint64_t now, TransportSink& sink);
  [[nodiscard]] uint64_t next_deadline() const { return timers_.next_deadline(); }
  // tick() does nothing before then: the next timer scan (TimerModule::next_scan).
  [[nodiscard]] uint64_t next_tick_work() const { return timers_.next_scan(); }
  // The timeout a new message to peer_ip gets now (rtt_estimator.h).
  [[nodiscard]] uint64_t rto(uint32_t peer_ip) const { return rtt_->rto(peer_ip); }

 private:
  friend class SenderShell<NdpSender, NdpParams, HeldAcks>;
  // ACK / NACK / PULL for one of our messages (SenderShell::on_control).
  void handle_control(const wire::FrameHeader& h, uint64_t now, TransportSink& sink);
  // A message just taken into slot: its first packets leave, its timer runs.
  void start(uint32_t slot, TransportSink& sink);
  // Its timer fired and its peer is not dead: wait, probe or resend.
  void on_timeout(uint32_t slot, OutboundMessage& m, uint64_t now, TransportSink& sink);
  void give_up(uint32_t slot, TxFailureReason why, TransportSink& sink);
  void pump(uint32_t slot, TransportSink& sink);
  void send_packet(uint32_t slot, uint8_t index, TransportSink& sink);
  // A silent peer's probe: the message's first unacknowledged packet.
  void probe(uint32_t slot, TransportSink& sink);
  void complete(uint32_t slot);
  // What an ACK (one packet, or a bitmap) does: newly acknowledged packets
  // freed, the round trip sampled (from the echoed send stamp, 0: none);
  // true when the message is complete.
  bool on_acked(uint32_t slot, uint64_t newly, uint16_t echo, uint64_t now);

  SendStamp stamp_;
};

}  // namespace nanopu
