// What NDP and Homa share around their sender and receiver, in one home
// (docs/design.md §2, "Transports"): what a transport knows of its peers,
// kept once and lent to both halves, and the half of the Transport seam
// both protocols answer alike. Each protocol adds its own header's work:
// on_data, on_control (nic/transport/ndp/ndp_transport.h,
// nic/transport/homa/homa_transport.h).
#pragma once

#include <algorithm>

#include "nanopu/stats.h"
#include "nic/transport/common/transport_params.h"
#include "nic/transport/common/transport_peers.h"
#include "nic/transport/transport.h"

namespace nanopu {

// Sender and Receiver are built from (TransportParams, the protocol's
// Params, [pool,] counters, TransportPeers<Held>*).
template <typename Sender, typename Receiver, typename Held>
class TransportShell : public Transport {
 public:
  void on_message(rte_mbuf* msg, uint64_t now, TransportSink& sink) override { sender_.send_message(msg, now, sink); }
  void on_tick(uint64_t now, TransportSink& sink) override {
    sender_.tick(now, sink);
    receiver_.tick(now, sink);
    peers_.held.expire(now, sink);
  }
  [[nodiscard]] uint32_t tx_capacity() const override { return sender_.free_slots(); }
  [[nodiscard]] uint32_t outbound_in_use() const override { return sender_.in_flight(); }
  [[nodiscard]] uint32_t inbound_in_use() const override { return receiver_.slots_in_use(); }
  [[nodiscard]] uint64_t next_timer_deadline() const override {
    return std::min(sender_.next_deadline(), peers_.held.next_deadline());
  }
  [[nodiscard]] uint64_t next_tick_work() const override {
    return std::min({sender_.next_tick_work(), receiver_.next_tick_work(), peers_.held.next_deadline()});
  }
  void on_link_restored(uint64_t now) override { peers_.live.restart_clock(now); }
  void set_packet_tap(PacketTap* tap) override { receiver_.set_tap(tap); }

 protected:
  template <typename Params>
  TransportShell(const TransportParams& c, const Params& p, rte_mempool* pool, NicCounters* counters)
      : counters_(counters),
        peers_(c, p.held_acks, p.ack_hold_ticks, counters),
        sender_(c, p, pool, counters, &peers_),
        receiver_(c, p, counters, &peers_) {}

  // Any packet from a peer: alive; after an unanswered probe its messages
  // resume now, not at their backed-off timers.
  void heard(uint32_t ip, uint64_t now) {
    if (peers_.live.heard(ip, now)) sender_.resume(ip, now);
  }

  NicCounters* counters_;
  TransportPeers<Held> peers_;  // before sender_ and receiver_, which keep a pointer to it
  Sender sender_;
  Receiver receiver_;
};

}  // namespace nanopu
