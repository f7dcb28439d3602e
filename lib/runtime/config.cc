// Config::validate(): every setting checked once, before anything is built.
// Each error is one line naming the Config field (the flag of the same name
// in nanopu::flags), the value given and what is accepted.
#include "nanopu/config.h"

#include "absl/strings/str_cat.h"

namespace nanopu {
namespace {

// (absl::string_view: Debian's Abseil does not alias std::string_view.)
template <typename V>
absl::Status invalid(absl::string_view field, const V& value, absl::string_view accepted) {
  return absl::InvalidArgumentError(absl::StrCat("Config.", field, "=", value, ": ", accepted));
}

}  // namespace

absl::Status Config::validate() const {
  if (lcores.empty()) return invalid("lcores", "{}", "give at least one lcore (the NIC core)");
  for (size_t i = 0; i < lcores.size(); ++i)
    for (size_t j = i + 1; j < lcores.size(); ++j)
      if (lcores[i] == lcores[j])
        return invalid("lcores", lcores[i], "listed twice; each lcore runs one core");
  if (shared_workers == 0 || (shared_workers > 1 && lcores.size() > 1))
    return invalid("shared_workers", shared_workers,
                   "at least 1, and more than 1 only with a single lcore");
  if (worker_count() > kMaxWorkerCores)
    return invalid("lcores", worker_count(),
                   absl::StrCat("worker cores: at most ", kMaxWorkerCores));
  if (backend == Backend::kUring) {
    if (!vdevs.empty())
      return invalid("vdevs", vdevs.front(),
                     "a DPDK device; backend=uring carries frames on a UDP socket at ip:udp_port");
    if (!pci_devices.empty())
      return invalid("pci_devices", pci_devices.front(), "a DPDK device; not used with backend=uring");
    if (!pcap_path.empty())
      return invalid("pcap_path", pcap_path,
                     absl::StrCat("captures a DPDK port; with backend=uring capture the socket: "
                                  "tcpdump -i any udp port ", udp_port));
    if (udp_port == 0) return invalid("udp_port", udp_port, "must be 1..65535");
  } else if (backend != Backend::kDpdk) {
    return invalid("backend", static_cast<int>(backend), "kDpdk or kUring");
  }
  if (link_wait_s < 0) return invalid("link_wait_s", link_wait_s, "seconds, >= 0");
  if (link_hold_s < 0) return invalid("link_hold_s", link_hold_s, "seconds, >= 0");
  if (mbufs < 1024) return invalid("mbufs", mbufs, "need at least 1024");
  if (fifo_messages < 2 || fifo_messages > (1u << 20))
    return invalid("fifo_messages", fifo_messages, "must be 2..1048576");
  if (max_message_bytes == 0 || max_message_bytes > kMaxMessageBytes)
    return invalid("max_message_bytes", max_message_bytes,
                   absl::StrCat("must be 1..", kMaxMessageBytes));
  if (max_threads_per_core == 0 || max_threads_per_core > 64)
    return invalid("max_threads_per_core", max_threads_per_core, "must be 1..64");
  if (rtt_packets == 0) return invalid("rtt_packets", rtt_packets, "must be at least 1");
  if (transport != TransportProtocol::kNdp && transport != TransportProtocol::kHoma)
    return invalid("transport", static_cast<int>(transport), "kNdp or kHoma");
  if (transport == TransportProtocol::kHoma && backend == Backend::kUring)
    return invalid("transport", "homa",
                   "ndp with backend=uring: the UDP envelope carries neither the IPv4 protocol "
                   "number nor the TOS (Homa's priority); use a DPDK port for Homa");
  if (rtt_bytes == 0 || rtt_bytes > kMaxMessageBytes)
    return invalid("rtt_bytes", rtt_bytes, absl::StrCat("must be 1..", kMaxMessageBytes));
  if (overcommit == 0 || overcommit > 64) return invalid("overcommit", overcommit, "must be 1..64");
  if (homa_unsched_cutoffs.size() != 3)
    return invalid("homa_unsched_cutoffs", homa_unsched_cutoffs.size(),
                   "three ascending byte counts (priorities 7, 6, 5; longer messages 4)");
  for (size_t i = 1; i < homa_unsched_cutoffs.size(); ++i)
    if (homa_unsched_cutoffs[i] < homa_unsched_cutoffs[i - 1])
      return invalid("homa_unsched_cutoffs", homa_unsched_cutoffs[i], "must be ascending");
  if (outbound_slots == 0 || outbound_slots > 65536)
    return invalid("outbound_slots", outbound_slots, "must be 1..65536");
  if (reassembly_slots == 0 || reassembly_slots > 65536)
    return invalid("reassembly_slots", reassembly_slots, "must be 1..65536");
  if (!(rto_us > 0)) return invalid("rto_us", rto_us, "must be > 0");
  if (!(ack_hold_us >= 0) || !(ack_hold_us < rto_us / 2))
    return invalid("ack_hold_us", ack_hold_us,
                   "must be >= 0 and below half of --rto_us (a held ACK must reach the sender before it retransmits)");
  if (max_retransmits == 0) return invalid("max_retransmits", max_retransmits, "must be > 0");
  if (!(link_gbps > 0)) return invalid("link_gbps", link_gbps, "must be > 0");
  if (!(reassembly_expiry_ms > 0))
    return invalid("reassembly_expiry_ms", reassembly_expiry_ms, "must be > 0");
  if (reserved_priority0_slots != 0 && reserved_priority0_slots >= reassembly_slots)
    return invalid("reserved_priority0_slots", reserved_priority0_slots,
                   absl::StrCat("must be below reassembly_slots=", reassembly_slots));
  if (context_slots > reassembly_slots)
    return invalid("context_slots", context_slots,
                   absl::StrCat("must not exceed reassembly_slots=", reassembly_slots));
  if (context_packets != 0 && context_packets < 64)
    return invalid("context_packets", context_packets, "0 (default) or at least 64 (one largest message)");
  if (absl::Status s = faults.validate(); !s.ok()) return s;
  if (core_select != CoreSelectPolicy::kJbsq && core_select != CoreSelectPolicy::kRss &&
      core_select != CoreSelectPolicy::kStatic)
    return invalid("core_select", static_cast<int>(core_select), "kJbsq, kRss or kStatic");
  if (jbsq_n == 0) return invalid("jbsq_n", jbsq_n, "JBSQ needs n >= 1 (n = 1 is a single queue)");
  if (jbsq_n > fifo_messages)
    return invalid("jbsq_n", jbsq_n, absl::StrCat("must not exceed fifo_messages=", fifo_messages));
  if (global_queue_messages < 2 || global_queue_messages > (1u << 20))
    return invalid("global_queue_messages", global_queue_messages, "must be 2..1048576");
  if (scheduler != SchedMode::kHts && scheduler != SchedMode::kTis)
    return invalid("scheduler", static_cast<int>(scheduler), "kHts or kTis");
  if (!(t0_ns > 0)) return invalid("t0_ns", t0_ns, "must be > 0");
  if (!(tis_period_ns > 0)) return invalid("tis_period_ns", tis_period_ns, "must be > 0");
  if (!(idle_timeout_ns >= 0)) return invalid("idle_timeout_ns", idle_timeout_ns, "must be >= 0");
  if (!(shared_nic_poll_ns >= 0))
    return invalid("shared_nic_poll_ns", shared_nic_poll_ns, "must be >= 0");
  if (!(async_preempt_us >= 0))
    return invalid("async_preempt_us", async_preempt_us, "must be >= 0 (0: never signal)");
  if (!(watchdog_ms >= 0)) return invalid("watchdog_ms", watchdog_ms, "must be >= 0 (0: off)");
  if (poll != PollMode::kBusy && poll != PollMode::kAdaptive)
    return invalid("poll", static_cast<int>(poll), "kBusy or kAdaptive");
  if (!(poll_spin_us >= 0)) return invalid("poll_spin_us", poll_spin_us, "must be >= 0");
  return absl::OkStatus();
}

}  // namespace nanopu
