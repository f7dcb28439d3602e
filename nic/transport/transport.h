// The NIC-terminated transport (nanoPU §2.3, §3.3) as the NIC core drives it.
// A transport has no I/O of its own: packets and time come in as arguments
// and go out through the TransportSink, which the NIC core implements (and a
// test or the virtual-time model can implement too).
//
// The seam is protocol-neutral: a transport hands the sink a
// wire::TransportHeader (protocol, TOS, that protocol's header) and the NIC
// core frames it; received frames reach the transport of their IPv4
// protocol number. NDP (transport/ndp) and Homa (transport/homa) sit behind
// it, both live in every NIC core (docs/design.md §2, "Transports").
#pragma once

#include <rte_mbuf.h>

#include <cstdint>

#include "lib/contract/context_table.h"
#include "lib/wire/frame.h"
#include "nanopu/tx_failure.h"

namespace nanopu {

class PacketTap;  // nic/reassembly/packet_tap.h

// A message the transport could not deliver: whose (MsgMeta::sender, the
// NIC's index of the sending thread), which (its tag), where to, and why.
struct FailedMessage {
  uint16_t sender = 0;
  TxFailure failure;
};

class TransportSink {
 public:
  virtual ~TransportSink() = default;
  // A complete message for context dst: data at the first payload byte,
  // pkt_len == message length, MsgMeta filled. Core selection places it in a
  // thread's FIFO or the context's global queue. Returns false if it could
  // not be accepted (the message has then been freed and counted).
  virtual bool deliver(rte_mbuf* msg, ContextEntry* dst) = 0;
  // A DATA packet: m's data starts with kFrameHeaderBytes of room for the
  // header, then payload_bytes of payload.
  virtual void send_data(rte_mbuf* m, uint32_t dst_ip, const wire::TransportHeader& h,
                         size_t payload_bytes) = 0;
  // A control packet (ACK, NACK, PULL, GRANT ...) with the 64-byte zero payload.
  virtual void send_control(uint32_t dst_ip, const wire::TransportHeader& h) = 0;
  // Whether this sink frames a control packet's payload. One that does not
  // (the analytic model's) is sent what a payload would say as control
  // packets of their own, in the protocol's way (NDP's ACK lists:
  // held_acks.cc).
  [[nodiscard]] virtual bool frames_payloads() const { return false; }
  // A control packet whose payload says more (an NDP ACK's list of the
  // messages it also acknowledges: lib/wire/ack_list.h). Sent only to a sink
  // that frames_payloads().
  virtual void send_control_with(uint32_t dst_ip, const wire::TransportHeader& h,
                                 const wire::ControlPayload& payload) {
    (void)payload;
    send_control(dst_ip, h);
  }
  // The transport gave up a message (its retransmissions went unanswered,
  // its receiver refused it, or it found no slot). Sinks that have no
  // threads to tell (models, tests) may ignore it.
  virtual void message_failed(const FailedMessage& f) { (void)f; }
  // peer_ip is a new run (its DATA named one, or it refused a message meant
  // for its previous run: PeerRuns): what its previous run acknowledged but
  // did not answer never will be.
  virtual void peer_restarted(uint32_t peer_ip) { (void)peer_ip; }
};

class Transport {
 public:
  virtual ~Transport() = default;
  // The IPv4 protocol number this transport speaks (wire::kIpProtoNdp ...).
  [[nodiscard]] virtual uint8_t protocol() const = 0;
  // A DATA packet that the pipeline matched to dst. Takes ownership of pkt.
  virtual void on_data(rte_mbuf* pkt, const wire::FrameHeader& h, size_t payload_bytes,
                       ContextEntry* dst, uint64_t now, TransportSink& sink) = 0;
  // A control packet for this host. Takes ownership of pkt.
  virtual void on_control(rte_mbuf* pkt, const wire::FrameHeader& h, uint64_t now,
                          TransportSink& sink) = 0;
  // A complete message from a thread's TX FIFO. Takes ownership of msg.
  virtual void on_message(rte_mbuf* msg, uint64_t now, TransportSink& sink) = 0;
  // Called once per NIC loop iteration (retransmit timers, pacing).
  virtual void on_tick(uint64_t now, TransportSink& sink) = 0;
  // Messages on_message() can take now (free packetization slots).
  [[nodiscard]] virtual uint32_t tx_capacity() const = 0;
  // Messages being sent / being received right now (leak checks, stats).
  [[nodiscard]] virtual uint32_t outbound_in_use() const = 0;
  [[nodiscard]] virtual uint32_t inbound_in_use() const = 0;
  // When the transport next needs on_tick() for its outbound messages
  // (retransmission timers); UINT64_MAX if never. An idle NIC sleeps no
  // longer than this.
  [[nodiscard]] virtual uint64_t next_timer_deadline() const = 0;
  // In a simulation, which polls a host only when it has something to do
  // (model::SimLoop): the first time at which on_tick() would do anything
  // or change any state — a timer scan, a paced PULL, a sweep. Until then
  // on_tick() is a no-op. 0: now (the default: every poll).
  [[nodiscard]] virtual uint64_t next_tick_work() const { return 0; }
  // The link is back after the NIC held its messages through an outage:
  // silence while it was down says nothing of the peers (a give-up clock
  // that kept running would give everything up the moment it came back).
  virtual void on_link_restored(uint64_t now) { (void)now; }
  // Who sees each packet of a multi-packet message as it is kept, before
  // the message is whole (sPIN's handlers: nic/reassembly/packet_tap.h).
  virtual void set_packet_tap(PacketTap* tap) { (void)tap; }
};

}  // namespace nanopu
