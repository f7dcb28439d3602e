// Homa receiver (Homa, SIGCOMM'18, §3.3–§3.7; docs/wire.md "Homa behaviour"):
// a message's unscheduled packets arrive unasked; the receiver then GRANTs
// the messages with the fewest bytes left first (SRPT), keeping each granted
// one rtt_bytes ahead of what has arrived, to at most `overcommit` senders
// holding scheduled grants at once, each grant naming a priority by rank.
// A complete message is delivered once and answered by one ACK (not one per
// packet, as NDP). Missing granted data is asked for with RESEND after
// resend_ticks of silence; when its sender has been silent for peer_dead the partial message
// is dropped (its sender gives up and reports it). A trimmed packet is asked
// for again at once. Admission is NDP's (buffer_partition.h): refused, the
// first packet is NACKed and the sender's timer tries again.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "nanopu/stats.h"
#include "nic/transport/common/receive_front.h"
#include "nic/transport/common/peer_liveness.h"
#include "nic/transport/common/rtt_estimator.h"
#include "nic/transport/common/transport_params.h"
#include "nic/transport/common/held_acks.h"
#include "nic/transport/common/transport_peers.h"
#include "nic/transport/homa/homa_params.h"
#include "nic/transport/transport.h"

namespace nanopu {

class HomaReceiver {
 public:
  // rtt and live: the transport's, shared with its sender (may be null in
  // tests: then RESENDs wait resend_ticks and give-up counts no peer's silence).
  // held: where ACKs wait for a DATA packet to carry them (null: none wait).
  // peers: the transport's (transport_shell.h), shared with its sender.
  HomaReceiver(const TransportParams& c, const HomaParams& p, NicCounters* counters,
               TransportPeers<HomaHeldAcks>* peers);

  void on_data(rte_mbuf* pkt, const wire::FrameHeader& h, size_t payload_bytes, ContextEntry* dst,
               uint64_t now, TransportSink& sink);
  // BUSY from a sender (its answer to our RESEND): the message is alive.
  void on_busy(const wire::FrameHeader& f, uint64_t now);
  // RESENDs for silent messages, and grants put off for a busy core.
  void tick(uint64_t now, TransportSink& sink);
  [[nodiscard]] uint32_t slots_in_use() const { return front_.slots_in_use(); }
  void set_tap(PacketTap* tap) { front_.set_tap(tap); }
  // tick() does nothing before then: grants held for a core (now), the
  // next sweep of partial messages (none: never).
  [[nodiscard]] uint64_t next_tick_work() const {
    if (held_for_core_) return 0;
    return active_.empty() ? UINT64_MAX : next_sweep_;
  }

 private:
  // A control packet about message m, and one answering DATA packet f
  // (its ids echoed), as built and as sent.
  [[nodiscard]] static wire::HomaHeader control_header(const InboundMessage& m, uint8_t flags, uint8_t pkt_offset,
                                                       uint16_t grant_offset);
  void control(const InboundMessage& m, uint8_t flags, uint8_t pkt_offset, uint16_t grant_offset,
               TransportSink& sink) const;
  [[nodiscard]] static wire::HomaHeader reply_header(const wire::FrameHeader& f, uint8_t flags, uint16_t grant_offset);
  void reply_to(const wire::FrameHeader& f, uint8_t flags, uint16_t grant_offset,
                TransportSink& sink) const;
  // A whole message's ACK: held for a DATA packet to carry when its sender
  // takes ACKs that way (`takes`), else sent now.
  void ack(uint32_t ip, const wire::HomaHeader& a, bool takes, uint64_t now, TransportSink& sink);
  // A nanopu sender that names its run and takes ACKs on DATA (docs/wire.md).
  [[nodiscard]] static bool takes_acks(const wire::HomaHeader& h) {
    return (h.options & wire::kHomaOptTakesAcks) != 0 && h.incarnation != 0;
  }
  // SRPT: grants to the messages with the fewest packets left.
  void schedule_grants(TransportSink& sink);
  static constexpr uint32_t kMaxOvercommit = 64;  // --overcommit's most (the config refuses more)
  // The senders holding a scheduled grant (at most overcommit, and one
  // FIFO grant beyond it).
  struct GrantHolders {
    uint32_t ips[kMaxOvercommit + 1];
    uint32_t n = 0;
    [[nodiscard]] bool holds(uint32_t ip) const { return std::find(ips, ips + n, ip) != ips + n; }
  };
  void fifo_grant(const GrantHolders& holders, TransportSink& sink);  // every fifo_grant_every-th: the oldest
  void srpt_grants(GrantHolders& holders, TransportSink& sink);       // the rest: fewest packets left first
  // A RESEND for the first run of missing granted packets; false if none.
  bool ask_again(InboundMessage& m, TransportSink& sink);
  // A packet of a message already being received came again (the sender's
  // probe after a silent timeout): tell it where things stand.
  void answer_probe(InboundMessage& m, TransportSink& sink);
  // A packet stored in slot: ACK and delivery when whole, else grants.
  void on_stored(uint32_t slot, const wire::HomaHeader& h, bool first, uint64_t now,
                 TransportSink& sink);
  void deliver(uint32_t slot, uint64_t now, TransportSink& sink);
  // Drops a partial message (expired, aborted).
  void abandon(uint32_t slot);
  void forget_active(uint32_t slot) { active_.erase(std::find(active_.begin(), active_.end(), slot)); }
  [[nodiscard]] bool core_free(const ContextEntry* dst) const {
    return !p_.grant_when_core_free || dst->held.empty();
  }
  [[nodiscard]] uint16_t granted_bytes(const InboundMessage& m) const {
    return static_cast<uint16_t>(std::min<uint32_t>(m.msg_len, uint32_t{m.pulled} * wire::kSegmentBytes));
  }
  [[nodiscard]] bool holds_scheduled_grant(const InboundMessage& m) const {
    return m.granted && m.received_count < m.pulled;
  }

  // How long a message may be silent before a RESEND: half its peer's
  // timeout (before the sender's own timer probes), backed off per RESEND.
  [[nodiscard]] uint64_t resend_wait(const InboundMessage& m) const;

  TransportParams c_;
  HomaParams p_;
  NicCounters* counters_;
  const RttEstimator* rtt_;
  const PeerLiveness* live_;
  HomaHeldAcks* held_;
  ReceiveFront front_;
  std::vector<uint32_t> active_;       // slots in use (partial multi-packet messages), oldest first
  std::vector<uint32_t> order_;        // scratch: active_ by packets left
  bool held_for_core_ = false;         // some grant waits for a free core
  uint32_t grants_since_fifo_ = 0;     // SRPT grants since the oldest message got one
  uint64_t next_sweep_ = 0;
};

}  // namespace nanopu
