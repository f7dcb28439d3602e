// What NDP's and Homa's senders share around their protocol, in one home
// (docs/design.md §8, "The transport seam"): the packetization buffer and
// the ids per receiver, the retransmit timers, the peers lent by the
// transport (transport_peers.h), a message taken into a slot or held for
// its receiver's id window and started when the window opens, a control
// packet that may open one, a silent peer's messages resumed when it speaks,
// and the timer's first verdict: a message whose peer is dead is given up
// (peer_liveness.h), any other left to the protocol's on_timeout. Each
// sender adds what its protocol sends (nic/transport/ndp/ndp_sender.h,
// nic/transport/homa/homa_sender.h).
#pragma once

#include <rte_mbuf.h>

#include <algorithm>
#include <cstdint>

#include "lib/base/nic_buggify.h"
#include "lib/wire/frame.h"
#include "nanopu/stats.h"
#include "nic/packetizer/packetization_buffer.h"
#include "nic/timers/timer_module.h"
#include "nic/transport/common/id_window.h"
#include "nic/transport/common/peer_liveness.h"
#include "nic/transport/common/peer_runs.h"
#include "nic/transport/common/rtt_estimator.h"
#include "nic/transport/common/send_front.h"
#include "nic/transport/common/transport_params.h"
#include "nic/transport/common/transport_peers.h"
#include "nic/transport/transport.h"

namespace nanopu {

// Derived (CRTP, a friend of it) provides start(slot, sink): a message just
// taken into slot begins; handle_control(h, now, sink): a control packet for
// one of its messages; give_up(slot, why, sink): the slot freed and its
// thread told; on_timeout(slot, m, now, sink): the timer of a message not
// given up fired.
template <typename Derived, typename Params, typename Held>
class SenderShell {
 public:
  // Slots free and not promised to a message waiting for its id (id_window.h).
  [[nodiscard]] uint32_t free_slots() const { return buffer_.free_slots() - ids_.held(); }
  // Taken and not done: in a slot, or held for an id.
  [[nodiscard]] uint32_t in_flight() const { return buffer_.capacity() - free_slots(); }
  // A complete message (mbuf chain, one segment per packet). Needs a free slot.
  void send_message(rte_mbuf* msg, uint64_t now, TransportSink& sink) {
    timer_sink_ = &sink;
    now_ = now;
    const int s = take_into_slot(buffer_, msg, ids_, peers_, counters_, sink);
    if (s >= 0) derived().start(static_cast<uint32_t>(s), sink);
  }
  // A control packet for one of our messages (ACK, NACK, PULL, GRANT, ...).
  void on_control(const wire::FrameHeader& h, uint64_t now, TransportSink& sink) {
    timer_sink_ = &sink;
    now_ = now;
    const uint32_t free_before = buffer_.free_slots();
    derived().handle_control(h, now, sink);
    if (ids_.held() != 0 && buffer_.free_slots() > free_before) start_released(sink);  // a window may open
  }
  // peer_ip spoke after a probe went unanswered: its messages retry at the
  // next tick, not at their backed-off timers.
  void resume(uint32_t peer_ip, uint64_t now) {
    for (uint32_t slot = 0; slot < buffer_.capacity(); ++slot) {
      OutboundMessage& m = buffer_.at(slot);
      if (!m.used || m.dst_ip != peer_ip) continue;
      m.timeouts = 0;
      timers_.schedule(slot, now);
    }
  }

 protected:
  SenderShell(const TransportParams& c, const Params& p, rte_mempool* pool, NicCounters* counters,
              TransportPeers<Held>* peers)
      : c_(c),
        p_(p),
        pool_(pool),
        counters_(counters),
        buffer_(c.outbound_slots),
        timers_(c.outbound_slots, std::max<uint64_t>(c.rto_ticks / 4, 1), on_timer, this),
        peers_(&peers->runs),
        rtt_(&peers->rtt),
        live_(&peers->live),
        held_(&peers->held) {}

  // Expired timers, as a tick runs them; a give-up may open a window.
  void poll_timers(uint64_t now, TransportSink& sink) {
    timer_sink_ = &sink;
    now_ = now;
    const uint32_t free_before = buffer_.free_slots();
    timers_.poll(now);
    if (ids_.held() != 0 && buffer_.free_slots() > free_before) start_released(sink);
  }
  // The messages held for their receiver's id window that may go now.
  void start_released(TransportSink& sink) {
    ids_.release_ready([&](rte_mbuf* msg, uint16_t id, uint16_t dst_run) {
      derived().start(take_held(buffer_, msg, id, dst_run), sink);
    });
  }
  // slot's retransmit timer, from its peer's timeout (send_front.h).
  void arm(uint32_t slot, uint64_t now) {
    timers_.schedule(slot, retransmit_due(*rtt_, *live_, buffer_.at(slot), c_.peer_dead(), now));
  }

  TransportParams c_;
  Params p_;
  rte_mempool* pool_;  // for the clones handed to the port
  NicCounters* counters_;
  PacketizationBuffer buffer_;
  IdWindow ids_{buffer_};  // tx_msg_id per receiver (docs/wire.md "Message ids")
  TimerModule timers_;
  const PeerRuns* peers_;
  RttEstimator* rtt_;
  PeerLiveness* live_;
  Held* held_;
  uint64_t now_ = 0;                     // the time of the current call
  TransportSink* timer_sink_ = nullptr;  // the NIC core this sender belongs to

 private:
  Derived& derived() { return static_cast<Derived&>(*this); }
  // Given up by time: its peer silent for peer_dead (a slow peer is not a
  // dead one), never after a count of timeouts.
  static void on_timer(void* self_ptr, uint32_t slot, uint64_t now) {
    Derived& self = static_cast<SenderShell*>(self_ptr)->derived();
    OutboundMessage& m = self.buffer_.at(slot);
    if (!m.used) return;
    self.now_ = now;
    TransportSink& sink = *self.timer_sink_;
    if (give_up_now(*self.live_, m.dst_ip, now, m.last_progress, self.c_.peer_dead())) {
      self.give_up(slot, TxFailureReason::kNoAnswer, sink);
      return;
    }
    if (nic_buggify()) {  // simulation only (lib/base/nic_buggify.h): the timer fires a period late
      self.arm(slot, now);
      return;
    }
    self.on_timeout(slot, m, now, sink);
  }
};

}  // namespace nanopu
