// Homa as the NIC terminates it (Homa, SIGCOMM'18; the nanoPU's header,
// docs/wire.md "Homa header"): a sender (unscheduled bytes, grants, SRPT on
// the wire, probes) and a receiver (SRPT grants to `overcommit` senders,
// RESEND, one ACK per message, riding on DATA to the peer when it can,
// exactly-once delivery) behind the Transport
// seam, beside NDP in the same NIC core.
#pragma once

#include <algorithm>

#include "nic/transport/common/transport_params.h"
#include "nic/transport/homa/homa_params.h"
#include "nic/transport/homa/homa_receiver.h"
#include "nic/transport/homa/homa_sender.h"
#include "nic/transport/common/transport_shell.h"

namespace nanopu {

class HomaTransport final : public TransportShell<HomaSender, HomaReceiver, HomaHeldAcks> {
 public:
  HomaTransport(const TransportParams& c, const HomaParams& p, rte_mempool* pool, NicCounters* counters)
      : TransportShell(c, p, pool, counters) {}

  [[nodiscard]] uint8_t protocol() const override { return wire::kIpProtoHoma; }
  void on_data(rte_mbuf* pkt, const wire::FrameHeader& h, size_t payload_bytes, ContextEntry* dst,
               uint64_t now, TransportSink& sink) override {
    if (peers_.runs.heard(h.src_ip, h.homa.incarnation)) sink.peer_restarted(h.src_ip);
    heard(h.src_ip, now);
    if (h.homa.options & wire::kHomaOptCarriesAck)  // an ACK for one of ours rides along
      sender_.on_control(HomaHeldAcks::carried(h), now, sink);
    receiver_.on_data(pkt, h, payload_bytes, dst, now, sink);
  }
  void on_control(rte_mbuf* pkt, const wire::FrameHeader& h, uint64_t now,
                  TransportSink& sink) override {
    rte_pktmbuf_free(pkt);
    heard(h.src_ip, now);
    // BUSY alone comes from a sender about its message to us; every other
    // control packet (the receiver's BUSY is GRANT|BUSY) is for our sender.
    if (h.homa.flags == wire::kHomaBusy) {
      receiver_.on_busy(h, now);
      return;
    }
    const bool restarted =
        (h.homa.flags & wire::kHomaGone) != 0 && peers_.runs.forget(h.src_ip, h.homa.dst_incarnation);
    sender_.on_control(h, now, sink);  // the refused message's notice first
    if (restarted) sink.peer_restarted(h.src_ip);
  }
};

}  // namespace nanopu
