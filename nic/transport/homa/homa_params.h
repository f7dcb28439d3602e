// Homa's knobs (docs/wire.md, "Homa behaviour"). Defaults and where they
// come from:
//  - rtt_bytes 10240: the unscheduled bytes a sender sends before its first
//    GRANT, one round trip of data; the Homa paper (SIGCOMM'18, §3.2, §5)
//    uses ~10 KB at 10 Gb/s, and a software round trip (~5 µs) at the few
//    Gb/s a NIC core moves is of the same order;
//  - overcommit 8 and four scheduled priorities below four unscheduled ones
//    with cutoffs 200 / 2800 / 15000 bytes: the Linux HomaModule's defaults
//    (homa_utils.c, "wild guesses" there too), within the paper's §3.4 range;
//  - timeouts from the host's rto_us, rto_max_ms and peer_dead_ms, as NDP's
//    (TransportParams, shared by both);
//  - a limit of one full frame's time at --link_gbps on the sender's queue
//    at its port (host_params.cc), as HomaModule's max_nic_queue_ns.
//
// Times are in ticks of the caller's clock (common/transport_params.h).
#pragma once

#include <array>
#include <cstdint>


namespace nanopu {

// Homa's own knobs; slots, ids, incarnation, partition shares and timeouts
// are TransportParams, shared with NDP (the same hardware buffers).
struct HomaParams {
  uint32_t rtt_bytes = 10240;
  uint32_t overcommit = 8;  // senders granted at once (each its shortest message)
  // Unscheduled priority by message length: <= cutoff[0] gets 7, <= cutoff[1]
  // 6, <= cutoff[2] 5, longer 4. Scheduled data gets 3 (the shortest
  // remaining of the granted) down to 0.
  std::array<uint32_t, 3> unsched_cutoffs = {200, 2800, 15000};
  uint8_t max_sched_priority = 3;
  // Grant (or start a granted message) only while the destination context
  // has no message waiting for a core (its JBSQ queues have room); answer
  // BUSY otherwise (issue 15, item 4: grants coupled to cores).
  bool grant_when_core_free = false;
  // Every fifo_grant_every-th GRANT goes to the oldest message still being
  // granted, whatever its size: pure SRPT starves a long message for as
  // long as shorter ones keep coming (HomaModule's grant_fifo_fraction, 5 %
  // by default there too). 0: pure SRPT.
  uint32_t fifo_grant_every = 20;
  // The receiver asks for missing granted data after this much silence (or
  // half its sender's measured timeout, if longer), backed off per RESEND;
  // a sender silent for peer_dead has its partial message dropped (the
  // sender, hearing nothing, gives it up and reports it).
  uint64_t resend_ticks = 0;  // live hosts: rto / 2 (runtime/host/host_params.cc)
  // Scheduled packets the sender puts on the wire per poll, fewest remaining
  // bytes first (the sender half of SRPT).
  uint32_t tx_packets_per_poll = 16;
  // The sender keeps at most max_nic_queue_ticks of its link's time queued
  // at the port; a packet that would queue longer waits in the sender,
  // where SRPT picks what goes next (HomaModule's throttled list and
  // max_nic_queue_ns, homa_outgoing.c: a FIFO NIC queue of one message's
  // unscheduled bytes holds every shorter message and every reply behind
  // it). mtu_frame_ticks is a full frame's time on the link (--link_gbps);
  // 0: no limit, every packet to the port at once.
  uint64_t mtu_frame_ticks = 0;
  uint64_t max_nic_queue_ticks = 0;
  // A whole message's ACK to a sender that takes ACKs on DATA is held this
  // long for a DATA packet to that peer to carry (common/held_acks.h), as
  // NDP's; 0: every ACK leaves at once.
  uint64_t ack_hold_ticks = 0;
  uint32_t held_acks = 256;  // most ACKs held at once

  [[nodiscard]] uint16_t rtt_packets() const {
    const uint32_t p = (rtt_bytes + 1023) / 1024;
    return static_cast<uint16_t>(p == 0 ? 1 : (p > 64 ? 64 : p));
  }
  [[nodiscard]] uint8_t unscheduled_priority(uint16_t msg_len) const {
    uint8_t prio = 7;
    for (uint32_t c : unsched_cutoffs) {
      if (msg_len <= c) return prio;
      --prio;
    }
    return prio;  // 4
  }
};

}  // namespace nanopu
