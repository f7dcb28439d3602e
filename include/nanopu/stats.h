// Named counters. Each is written by exactly one core (no atomics on the hot
// path) and read by others only for reporting. Every name is printed at
// shutdown so a user can grep for it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string_view>
#include <utility>

namespace nanopu {

// Kinds of rejected frame (wire::ParseError, kOk excluded), each its own counter.
inline constexpr size_t kParseErrorKinds = 9;
// The counter name of parse error i ("rx_drop_bad_checksum", ...).
[[nodiscard]] std::string_view parse_error_counter_name(size_t i);

#define NANOPU_NIC_COUNTERS(X)                                                          \
  X(rx_packets)              /* frames taken from the port */                           \
  X(rx_bytes)                                                                            \
  X(rx_data_packets)                                                                     \
  X(rx_control_packets)                                                                  \
  X(rx_drop_not_for_host)    /* destination IPv4 is not this host's */                   \
  X(rx_to_os)                /* not NDP or Homa (ARP, ICMP, ...): to the OS (--os_port) */ \
  X(rx_to_os_dropped)        /* for the OS, its port full: dropped */                    \
  X(tx_from_os)              /* the OS's frames sent out of the port (--os_port) */      \
  X(rx_checksum_by_port)     /* IPv4 checksums the port checked (RX offload), good or bad */ \
  X(rx_program_dropped)      /* sent by the --pipeline program to its drop port, or to the OS with no --os_port */ \
  X(rx_program_stuck)        /* frames a --pipeline program never sent out (it loops) */ \
  X(tx_program_dropped)      /* frames the --egress_pipeline program dropped (its port 1, or past a poll's room) */ \
  X(tx_program_stuck)        /* frames an --egress_pipeline program never sent out (it loops) */ \
  X(tx_program_copied)       /* frames copied before the egress program (the transport keeps them, or no room before them) */ \
  X(rx_drop_unknown_context) /* no thread bound to the destination context */            \
  X(rx_drop_fifo_full)       /* the chosen thread's RX FIFO was full (RSS, static) */    \
  X(rx_drop_queue_full)      /* the context's global RX queue was full (JBSQ) */         \
  X(rx_drop_no_thread)       /* queued for a context whose threads all ended */          \
  X(rx_msgs_queued)          /* waited in a global RX queue for a JBSQ credit */         \
  X(rx_drop_segmented_mbuf)  /* header not contiguous in the first mbuf segment */      \
  X(rx_handed_off)           /* passed to the NIC core owning their peer (--nic_lcores) */ \
  X(rx_drop_handoff_full)    /* dropped: that NIC core's inbox was full */               \
  X(rx_msgs_delivered)                                                                   \
  X(rx_msgs_inline)          /* delivered inside their RX FIFO entry, no mbuf (register_path) */ \
  X(rx_dup_packets)          /* DATA already received (retransmission): re-ACKed, dropped */\
  X(rx_chopped_packets)      /* trimmed DATA (CHOP): answered NACK|PULL */               \
  X(rx_nack_no_slot)         /* no reassembly slot: NACKed so the sender retries */      \
  X(rx_nack_context_full)    /* the context's buffer share is used up: NACKed */         \
  X(rx_rejected_slo)         /* messages over their context's SLO queue: rejected (NACK|REJECT), copies not counted */ \
  X(tx_pulls_after_refusal)  /* a refused message asked for again once there was room */ \
  X(rx_nack_reserved)        /* only priority-0 contexts may take the last slots */      \
  X(rx_reassembly_expired)   /* partial message abandoned by its sender, freed */        \
  X(rx_reassembly_superseded) /* partial message of a sender that has since restarted */ \
  X(rx_senders_forgotten)    /* a sender's delivered-id window dropped for a newer sender */ \
  X(rx_beyond_id_memory)     /* a message older than the delivered-id memory, taken as new */ \
  X(rx_drop_stale_incarnation) /* DATA meant for this address's previous process */ \
  X(rx_stale_control)        /* ACK/NACK/PULL for no message of ours (late, duplicate) */ \
  X(tx_pulls_paced)          /* PULLs held back by pacing, sent later */                 \
  X(rx_homa_packets)         /* frames of the Homa transport (protocol 0x9A) taken */    \
  X(tx_homa_packets)         /* frames the Homa transport handed to the NIC to send */  \
  X(rx_grants)               /* Homa: GRANTs taken for our messages */                   \
  X(tx_grants)               /* Homa: GRANTs sent (SRPT, --overcommit senders at once) */ \
  X(rx_resends)              /* Homa: RESENDs taken */                                   \
  X(tx_resends)              /* Homa: RESENDs sent for missing granted data */           \
  X(rx_busy)                 /* Homa: BUSY taken (the peer is alive, holding us off) */  \
  X(tx_busy)                 /* Homa: BUSY sent (shorter messages first, or no free core) */ \
  X(rx_msgs_aborted)         /* Homa: partial message dropped, its sender silent for --peer_dead_ms */ \
  X(rx_granted_senders_peak) /* Homa: most senders holding scheduled grants at once */  \
  X(rx_grants_held_for_core) /* Homa --grant_when_core_free: grants put off, no core free */ \
  X(rx_acks)                                                                             \
  X(rx_acks_on_data)         /* NDP: ACKs that rode in a DATA packet (docs/wire.md) */   \
  X(tx_acks_on_data)         /* NDP: ACKs held and sent riding in a DATA packet */       \
  X(tx_acks_held_expired)    /* NDP: held ACKs no DATA packet took: sent as a control packet (alone or with a list) */ \
  X(tx_acks_listed)          /* NDP: held ACKs that left in an expiring one's list (no frame of their own) */ \
  X(rx_acks_listed)          /* NDP: ACKs read from a control packet's list (each checked as any ACK) */ \
  X(rx_bad_ack_lists)        /* NDP: malformed ACK lists ignored (the ACK itself taken) */ \
  X(tx_ack_bitmaps)          /* NDP: ACKs naming every packet received (one per message per poll) */ \
  X(rx_nacks)                                                                            \
  X(rx_pulls)                                                                            \
  X(tx_msgs)                 /* messages gathered from thread TX FIFOs */               \
  X(tx_msgs_inline)          /* of them written inside their TX FIFO entry, framed here (register_path) */ \
  X(tx_inline_no_mbuf)       /* polls an inline TX message waited for a buffer of the NIC core's */ \
  X(spin_msgs)               /* messages sPIN handlers took (nanopu/spin.h) */ \
  X(spin_msgs_streamed)      /* multi-packet messages sPIN handlers began on as their packets arrived */ \
  X(spin_msgs_abandoned)     /* streamed messages the transport freed incomplete (no completion ran) */ \
  X(spin_msgs_bypassed)      /* messages to a disabled sPIN context: reached its thread untouched */ \
  X(spin_disabled)           /* sPIN contexts disabled: a handler faulted, threw or ran past its budget */ \
  X(spin_no_mbuf)            /* a handler's host message or send lost: no buffer, or 4096 sends waiting */ \
  X(spin_sends_waited)       /* polls a handler's send waited for a packetization slot */ \
  X(tx_msgs_completed)       /* every packet acknowledged */                             \
  X(tx_msgs_failed)          /* given up: its peer silent for --peer_dead_ms, or refused */ \
  X(tx_msgs_held_for_ids)    /* waited for its receiver's id window (an older message to it unacknowledged) */ \
  X(tx_msgs_refused)         /* given up at once: the receiver is a newer run (GONE) */  \
  X(tx_msgs_rejected)        /* given up at once: rejected for load (NACK|REJECT) */   \
  X(peer_restarts)           /* a peer's DATA named a new run: its threads were told */ \
  X(tx_retransmits)          /* DATA packets sent again (NACK or timeout) */             \
  X(tx_timeouts)             /* retransmit timer expiries */                             \
  X(tx_probes)               /* a silent peer's one probe per timeout window */         \
  X(tx_probes_withheld)      /* timeouts that sent nothing: the peer was already probed */ \
  X(tx_rtt_samples_echoed)   /* round trips timed by an ACK's echoed send stamp (docs/wire.md) */ \
  X(tx_data_packets)                                                                     \
  X(tx_control_packets)                                                                  \
  X(tx_drop_port_full)       /* the port refused the packet (TX queue full) */           \
  X(tx_drop_no_mbuf)         /* no buffer for a control packet */                        \
  X(async_preempt_signals)   /* signals sent to workers that missed a safe point */      \
  X(link_downs)              /* the port's link went down (peer process gone) */         \
  X(link_restarts)           /* port restarts to reconnect (a role=client memif) */     \
  X(tx_drop_link_down)       /* frames dropped while the port was being restarted */    \
  X(watchdog_stuck)          /* a thread held its core past --watchdog_ms on one message */ \
  X(fault_dropped)           /* --faults: frames the wire lost */                        \
  X(fault_duplicated)        /* --faults: frames delivered twice */                      \
  X(fault_reordered)         /* --faults: frames held behind later ones */               \
  X(fault_corrupted)         /* --faults: corrupted, discarded by the MAC's FCS check */ \
  X(fault_mangled)           /* --faults: IPv4 header bit flipped (the parser's job) */  \
  X(fault_trimmed)           /* --faults: DATA trimmed to 72 bytes with CHOP */          \
  X(outbound_in_use)         /* gauge: packetization slots holding a message now */      \
  X(reassembly_in_use)       /* gauge: reassembly slots holding a partial message now */ \
  X(nic_polls)               /* NIC loop iterations */                                   \
  X(nic_idle_polls)          /* iterations that found nothing to do */                 \
  X(nic_sleeps)              /* adaptive polling: times the NIC core slept */

// Cache-line aligned: each is written by one core, often; never share a line.
struct alignas(64) NicCounters {
#define NANOPU_DECLARE(name) uint64_t name = 0;
  NANOPU_NIC_COUNTERS(NANOPU_DECLARE)
#undef NANOPU_DECLARE
  // Indexed by wire::ParseError (index 0, kOk, unused).
  uint64_t rx_parse_errors[kParseErrorKinds] = {};

  template <typename Fn>
  void for_each(Fn&& fn) const {
#define NANOPU_VISIT(name) fn(std::string_view(#name), name);
    NANOPU_NIC_COUNTERS(NANOPU_VISIT)
#undef NANOPU_VISIT
    for (size_t i = 1; i < kParseErrorKinds; ++i) fn(parse_error_counter_name(i), rx_parse_errors[i]);
  }
  [[nodiscard]] uint64_t rx_dropped() const;
  // Adds another NIC core's counts (a host's total over its NIC cores). A
  // peak, and the port's own link events (every NIC core sees them), are
  // the most of any core, not their sum.
  NicCounters& operator+=(const NicCounters& o) {
#define NANOPU_ADD(name) name += o.name;
    NANOPU_NIC_COUNTERS(NANOPU_ADD)
#undef NANOPU_ADD
    for (size_t i = 0; i < kParseErrorKinds; ++i) rx_parse_errors[i] += o.rx_parse_errors[i];
    for (auto [mine, theirs] :
         {std::pair{&rx_granted_senders_peak, o.rx_granted_senders_peak},
          std::pair{&link_downs, o.link_downs}, std::pair{&link_restarts, o.link_restarts}})
      *mine = std::max(*mine - theirs, theirs);  // the sum above less theirs is ours
    return *this;
  }
};

#define NANOPU_THREAD_COUNTERS(X)                                                       \
  X(rx_msgs)               /* messages the thread started reading */                   \
  X(tx_msgs)               /* complete messages handed to the NIC */                   \
  X(rx_words_flushed)      /* unread words discarded by msg_done() (footnote 9) */      \
  X(err_rx_empty)          /* read() with nothing in the RX FIFO */                    \
  X(err_read_past_end)     /* read() past the current message's last word */           \
  X(err_bad_length)        /* TX header with length 0 or over the maximum */           \
  X(err_no_buffers)        /* TX message dropped: no buffer for it */                  \
  X(err_bad_header)        /* TX header to 0.0.0.0 refused */                          \
  X(err_too_long)          /* write_header() over 65535 bytes or the maximum */        \
  X(err_incomplete)        /* half-written TX message dropped */                       \
  X(err_no_message)        /* msg_done() with no message being read */                 \
  X(tx_failure_notices)    /* give-ups and refusals reported to the thread by tag */   \
  X(tx_fifo_full_waits)    /* TX header waited for FIFO space */

struct alignas(64) ThreadCounters {
#define NANOPU_DECLARE(name) uint64_t name = 0;
  NANOPU_THREAD_COUNTERS(NANOPU_DECLARE)
#undef NANOPU_DECLARE
  template <typename Fn>
  void for_each(Fn&& fn) const {
#define NANOPU_VISIT(name) fn(std::string_view(#name), name);
    NANOPU_THREAD_COUNTERS(NANOPU_VISIT)
#undef NANOPU_VISIT
  }
};

#define NANOPU_CORE_COUNTERS(X)                                                         \
  X(switches)            /* thread resumes */                                            \
  X(preemptions)         /* a thread with work switched out for a better one */          \
  X(demotions)           /* priority 0 ran past t0 on one message (demoted to 1) */      \
  X(idle_rotations)      /* nothing active: the core rotated between idle threads */     \
  X(async_preemptions)   /* switched out from the preemption signal's handler */         \
  X(async_deferred)      /* the signal found nanopu code running: left to a safe point */ \
  X(sleeps)              /* adaptive polling: times the core slept with nothing to run */

struct alignas(64) CoreCounters {
#define NANOPU_DECLARE(name) uint64_t name = 0;
  NANOPU_CORE_COUNTERS(NANOPU_DECLARE)
#undef NANOPU_DECLARE
  template <typename Fn>
  void for_each(Fn&& fn) const {
#define NANOPU_VISIT(name) fn(std::string_view(#name), name);
    NANOPU_CORE_COUNTERS(NANOPU_VISIT)
#undef NANOPU_VISIT
  }
};

// Prints "prefix.name value" lines; zero counters are skipped unless `all`.
template <typename Counters>
void print_counters(FILE* out, std::string_view prefix, const Counters& c, bool all = false) {
  c.for_each([&](std::string_view name, uint64_t v) {
    if (v == 0 && !all) return;
    char key[96];
    std::snprintf(key, sizeof key, "%.*s.%.*s", static_cast<int>(prefix.size()), prefix.data(),
                  static_cast<int>(name.size()), name.data());
    std::fprintf(out, "  %-36s %llu\n", key, static_cast<unsigned long long>(v));
  });
}

}  // namespace nanopu
