// The half of sending that NDP and Homa share: a thread's message takes a
// packetization slot under its receiver's next message id (or waits for
// that receiver's id window, or, with no slot free, is given up and
// reported to its thread at once: never lost in silence); a
// control packet is matched to the message it names; every DATA packet
// carries the same identifying fields in either protocol's header.
#pragma once

#include <rte_mbuf.h>

#include <algorithm>
#include <cstdint>

#include "lib/contract/message.h"
#include "nanopu/app_header.h"
#include "nanopu/stats.h"
#include "nic/packetizer/packetization_buffer.h"
#include "nic/transport/common/id_window.h"
#include "nic/transport/common/peer_liveness.h"
#include "nic/transport/common/peer_runs.h"
#include "nic/transport/common/rtt_estimator.h"
#include "nic/transport/transport.h"

namespace nanopu {

// When m's retransmit timer is due: its peer's measured timeout, doubled per
// timeout without progress (a peer whose round trip is 20 ms, or that stalls
// for seconds, is waited for, not flooded), never beyond rto_max, and never
// later than the moment the peer counts as dead (peer_liveness.h).
//
// One doubling a timeout (RFC 6298 §5.5), not two: the message's own
// backoff doubles the peer's estimate, and the peer's backoff (for the
// messages that follow, timed_out_at) is a floor under it, not a factor —
// the product doubled twice a timeout, so a message alone with a silent
// peer waited 0.8, 3.2, 12.8, 51, 205, 819 ms, and after a 19 ms partition
// two probes lost for want of a buffer (a buggify site) cost it its give-up
// (nanopu-dst kv seed 795).
[[nodiscard]] inline uint64_t retransmit_due(const RttEstimator& rtt, const PeerLiveness& live,
                                             const OutboundMessage& m, uint64_t peer_dead, uint64_t now) {
  constexpr uint32_t kMaxBackoffShift = 20;  // the ceiling binds first
  const uint64_t base = rtt.estimated_rto(m.dst_ip);
  const uint32_t shift = std::min<uint32_t>(m.timeouts, kMaxBackoffShift);
  const uint64_t own = base > (rtt.ceiling() >> shift) ? rtt.ceiling() : base << shift;
  const uint64_t rto = std::max(own, rtt.rto(m.dst_ip));
  return std::min(now + rto, give_up_at(live, m.dst_ip, m.last_progress, peer_dead));
}

// What a message's retransmit timer does when the message is not given up
// (give_up_now() false), as both senders decide it: wait (the peer is silent
// and probed already: no storm), probe the silent peer, or resend to one
// that answers (PeerLiveness::retry). A timeout with no word for the
// message since it was sent says the peer's timeout may be too short for
// new messages too (Karn's backoff, per peer, once per timeout period,
// until the next sample: RFC 6298 §5.7): a peer that acknowledges
// everything late gets its next messages' timeout long enough to give a
// sample; a loss costs the next messages one doubled timeout until one
// comes back in time. A message its receiver answered (a NACK: no room
// yet) says nothing of the round trip. Counts the timeout or the withheld
// probe; what a probe or a resend sends is the protocol's.
[[nodiscard]] inline PeerLiveness::Retry timer_retry(OutboundMessage& m, uint64_t now, PeerLiveness& live,
                                                     RttEstimator& rtt, NicCounters* counters) {
  const PeerLiveness::Retry r = live.retry(m.dst_ip, now, m.last_tx, rtt.rto(m.dst_ip));
  if (r == PeerLiveness::Retry::kProbe || (r == PeerLiveness::Retry::kResend && m.last_progress <= m.last_tx))
    rtt.timed_out_at(m.dst_ip, now);
  ++m.timeouts;
  if (r == PeerLiveness::Retry::kWait) {
    ++counters->tx_probes_withheld;
    return r;
  }
  ++counters->tx_timeouts;
  if (r == PeerLiveness::Retry::kResend) m.timeouts = std::min(m.timeouts, kAlivePeerBackoffShift);
  return r;
}

// Frees slot's message and tells its sending thread it was given up (why).
inline void give_up_slot(PacketizationBuffer& buffer, uint32_t slot, TxFailureReason why,
                         NicCounters* counters, TransportSink& sink) {
  const OutboundMessage& m = buffer.at(slot);
  const FailedMessage f{m.sender, TxFailure{m.tag, m.dst_ip, m.dst_context, why}};
  buffer.release(slot);
  ++counters->tx_msgs_failed;
  sink.message_failed(f);
}

// msg, its id taken, into a free slot (one is always there for it: see
// take_into_slot()), meant for the receiver's run dst_run.
inline uint32_t take_held(PacketizationBuffer& buffer, rte_mbuf* msg, uint16_t id, uint16_t dst_run) {
  const auto slot = static_cast<uint32_t>(buffer.allocate());
  take_message(buffer.at(slot), msg, id, dst_run);
  return slot;
}

// Takes msg into a free slot of buffer under its receiver's next id
// (id_window.h), the receiver's run it is meant for fixed now (a reply built
// for a process that then restarts stays its own). -1 when it cannot go
// now: held in ids until its receiver's id window opens (take_held() then),
// or, with no slot for it (the NIC gathers only as many messages as there
// are slots), given up and reported.
[[nodiscard]] inline int take_into_slot(PacketizationBuffer& buffer, rte_mbuf* msg, IdWindow& ids,
                                        const PeerRuns* peers, NicCounters* counters,
                                        TransportSink& sink) {
  const MsgMeta* meta = msg_meta(msg);
  const AppHeader a = AppHeader::from_word(meta->app_header);
  if (buffer.free_slots() <= ids.held()) {  // every free slot is promised to a held message
    sink.message_failed({meta->sender, TxFailure{meta->tag, a.ip, a.context, TxFailureReason::kNoSlot}});
    rte_pktmbuf_free(msg);
    ++counters->tx_msgs_failed;
    return -1;
  }
  // The run is fixed now, held or not: a receiver that restarts while the
  // message waits must refuse it, not take it for its own (peer_runs.h).
  // A reply names the run its thread took the request from (MsgMeta::run):
  // the NIC may meanwhile have heard the peer's successor.
  const uint16_t run = meta->run != 0 ? meta->run : peers != nullptr ? peers->lookup(a.ip) : 0;
  uint16_t id = 0;
  if (!ids.try_take(a.ip, &id)) {
    ids.hold(msg, a.ip, run);
    ++counters->tx_msgs_held_for_ids;
    return -1;
  }
  return static_cast<int>(take_held(buffer, msg, id, run));
}

// Whether a control packet from src_ip (either protocol's header) names the
// message in slot: the slot in use, the same id and peer, and this run of
// ours (a receiver that does not echo the incarnation, the prototype, sends
// 0 there; buf_size_class carries its low byte either way).
template <typename Header>
[[nodiscard]] bool names_our_message(const PacketizationBuffer& buffer, const Header& h,
                                     uint32_t src_ip, uint16_t incarnation) {
  const uint32_t slot = h.buf_ptr;
  const bool ours = h.buf_size_class == static_cast<uint8_t>(incarnation) &&
                    (h.incarnation == 0 || h.incarnation == incarnation);
  return ours && slot < buffer.capacity() && buffer.at(slot).used &&
         buffer.at(slot).tx_msg_id == h.tx_msg_id && buffer.at(slot).dst_ip == src_ip;
}

// The fields every DATA packet carries, in either protocol's header, for
// packet `index` of the message in slot.
template <typename Header>
void fill_data_fields(Header& h, const OutboundMessage& m, uint32_t slot, uint8_t index,
                      uint16_t incarnation) {
  h.src_context = m.src_context;
  h.dst_context = m.dst_context;
  h.msg_len = m.msg_len;
  h.pkt_offset = index;
  h.tx_msg_id = m.tx_msg_id;
  h.buf_ptr = static_cast<uint16_t>(slot);
  // The incarnation tells a restarted sender's ids from its predecessor's
  // (docs/wire.md). buf_size_class, which every receiver echoes, carries its
  // low byte so a prototype receiver's control packets still match.
  h.buf_size_class = static_cast<uint8_t>(incarnation);
  h.incarnation = incarnation;
  h.dst_incarnation = m.dst_incarnation;
  h.core_time = m.core_time;
}

}  // namespace nanopu
