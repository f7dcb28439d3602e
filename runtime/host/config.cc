// Config::validate(): every setting checked once, before anything is built.
// Each error is one line naming the Config field (the flag of the same name
// in nanopu::flags), the value given and what is accepted.
#include "nanopu/config.h"

#include "absl/strings/str_cat.h"
#include "runtime/host/host_memory.h"
#include "runtime/host/pipeline_programs.h"

namespace nanopu {
namespace {

// (absl::string_view: Debian's Abseil does not alias std::string_view.)
template <typename V>
absl::Status invalid(absl::string_view field, const V& value, absl::string_view accepted) {
  return absl::InvalidArgumentError(absl::StrCat("Config.", field, "=", value, ": ", accepted));
}

// The cores, and where frames come from.
absl::Status check_cores_and_backend(const Config& c) {
  if (c.lcores.empty()) return invalid("lcores", "{}", "give at least one lcore (the NIC core)");
  for (size_t i = 0; i < c.lcores.size(); ++i)
    for (size_t j = i + 1; j < c.lcores.size(); ++j)
      if (c.lcores[i] == c.lcores[j])
        return invalid("lcores", c.lcores[i], "listed twice; each lcore runs one core");
  if (c.shared_workers == 0 || (c.shared_workers > 1 && c.lcores.size() > 1))
    return invalid("shared_workers", c.shared_workers,
                   "at least 1, and more than 1 only with a single lcore");
  if (c.nic_lcores == 0 || c.nic_lcores > kMaxNicCores)
    return invalid("nic_lcores", c.nic_lcores, absl::StrCat("1..", kMaxNicCores));
  if (c.nic_lcores > 1) {
    if (c.lcores.size() < c.nic_lcores)
      return invalid(
          "nic_lcores", c.nic_lcores,
          absl::StrCat("needs as many lcores at least: the first ", c.nic_lcores,
                       " of --lcores are NIC cores, the rest worker cores (", c.lcores.size(),
                       " given; exactly as many: each NIC core's lcore runs a worker too)"));
    if (c.backend != Backend::kDpdk)
      return invalid("nic_lcores", c.nic_lcores,
                     "more than 1 needs a DPDK port (one socket has one sender)");
    if (c.poll != PollMode::kBusy)
      return invalid("nic_lcores", c.nic_lcores,
                     "more than 1 needs poll=busy (adaptive sleep across NIC cores is not built)");
    if (!c.pcap_path.empty())
      return invalid("nic_lcores", c.nic_lcores,
                     "more than 1 with pcap_path: capture from several NIC cores is not built");
  }
  if (!c.spin_hpu_lcores.empty()) {
    if (c.spin_hpu_lcores.size() > 8) return invalid("spin_hpu_lcores", c.spin_hpu_lcores.size(), "at most 8 HPU lcores");
    if (c.nic_lcores != 1) return invalid("spin_hpu_lcores", c.spin_hpu_lcores.front(), "needs nic_lcores = 1");
    for (size_t i = 0; i < c.spin_hpu_lcores.size(); ++i) {
      for (unsigned l : c.lcores)
        if (l == c.spin_hpu_lcores[i])
          return invalid("spin_hpu_lcores", l, "also in lcores: an HPU lcore runs nothing else");
      for (size_t j = i + 1; j < c.spin_hpu_lcores.size(); ++j)
        if (c.spin_hpu_lcores[i] == c.spin_hpu_lcores[j])
          return invalid("spin_hpu_lcores", c.spin_hpu_lcores[i], "listed twice");
    }
  }
  if (c.worker_count() > kMaxWorkerCores)
    return invalid("lcores", c.worker_count(), absl::StrCat("worker cores: at most ", kMaxWorkerCores));
  if (c.backend == Backend::kUring) {
    if (!c.vdevs.empty())
      return invalid("vdevs", c.vdevs.front(),
                     "a DPDK device; backend=uring carries frames on a UDP socket at ip:udp_port");
    if (!c.pci_devices.empty())
      return invalid("pci_devices", c.pci_devices.front(), "a DPDK device; not used with backend=uring");
    if (!c.pcap_path.empty())
      return invalid("pcap_path", c.pcap_path,
                     absl::StrCat("captures a DPDK port; with backend=uring capture the socket: "
                                  "tcpdump -i any udp port ", c.udp_port));
    if (c.udp_port == 0) return invalid("udp_port", c.udp_port, "must be 1..65535");
  } else if (c.backend != Backend::kDpdk) {
    return invalid("backend", static_cast<int>(c.backend), "kDpdk or kUring");
  }
  if (c.link_wait_s < 0 && c.link_wait_s != Config::kLinkWaitAuto)
    return invalid("link_wait_s", c.link_wait_s, "seconds, >= 0, or -1 (auto: 10 s, a memif server without limit)");
  if (c.link_hold_s < 0) return invalid("link_hold_s", c.link_hold_s, "seconds, >= 0");
  return absl::OkStatus();
}

// Buffers, FIFOs and messages.
absl::Status check_buffers(const Config& c) {
  if (c.mbufs < 1024) return invalid("mbufs", c.mbufs, "need at least 1024");
  if (c.fifo_messages < 2 || c.fifo_messages > (1u << 20))
    return invalid("fifo_messages", c.fifo_messages, "must be 2..1048576");
  if (c.max_message_bytes == 0 || c.max_message_bytes > kMaxMessageBytes)
    return invalid("max_message_bytes", c.max_message_bytes, absl::StrCat("must be 1..", kMaxMessageBytes));
  if (c.max_threads_per_core == 0 || c.max_threads_per_core > 64)
    return invalid("max_threads_per_core", c.max_threads_per_core, "must be 1..64");
  if (c.outbound_slots == 0 || c.outbound_slots > 65536)
    return invalid("outbound_slots", c.outbound_slots, "must be 1..65536");
  if (c.reassembly_slots == 0 || c.reassembly_slots > 65536)
    return invalid("reassembly_slots", c.reassembly_slots, "must be 1..65536");
  if (!(c.reassembly_expiry_ms > 0))
    return invalid("reassembly_expiry_ms", c.reassembly_expiry_ms, "must be > 0");
  if (c.reserved_priority0_slots != 0 && c.reserved_priority0_slots >= c.reassembly_slots)
    return invalid("reserved_priority0_slots", c.reserved_priority0_slots,
                   absl::StrCat("must be below reassembly_slots=", c.reassembly_slots));
  if (c.context_slots > c.reassembly_slots)
    return invalid("context_slots", c.context_slots,
                   absl::StrCat("must not exceed reassembly_slots=", c.reassembly_slots));
  if (c.context_packets != 0 && c.context_packets < 64)
    return invalid("context_packets", c.context_packets, "0 (default) or at least 64 (one largest message)");
  return absl::OkStatus();
}

// SLO-aware admission: every SLO meetable, once per context, its bound
// within the context's global queue.
absl::Status check_context_slos(const Config& c) {
  // Each NIC core admits against its own queue: with several, the bound
  // would be theirs added up (not built).
  if (!c.context_slos.empty() && c.nic_lcores > 1)
    return invalid("context_slos", c.context_slos.size(), "one NIC core only (nic_lcores=1): several would each admit up to the bound");
  for (size_t i = 0; i < c.context_slos.size(); ++i) {
    const Config::ContextSlo& s = c.context_slos[i];
    const std::string what = absl::StrCat("context_slos[", i, "]");
    const std::string ctx = absl::StrCat(" (context ", s.context, ")");
    if (!(s.service_ns > 0)) return invalid(what + ".service_ns", s.service_ns, "must be > 0" + ctx);
    if (!(s.slo_ns > s.service_ns))
      return invalid(what + ".slo_ns", s.slo_ns,
                     absl::StrCat("cannot be met even when idle: must exceed its service_ns=", s.service_ns, ctx));
    const double ahead = (s.slo_ns / s.service_ns - 1) * static_cast<double>(c.lcores.size());
    if (ahead > c.global_queue_messages)
      return invalid(what + ".slo_ns", s.slo_ns,
                     absl::StrCat("lets ", ahead, " messages wait, more than global_queue_messages=",
                                  c.global_queue_messages, " holds", ctx));
    for (size_t j = 0; j < i; ++j)
      if (c.context_slos[j].context == s.context) return invalid(what + ".context", s.context, "given an SLO twice");
  }
  return absl::OkStatus();
}

// The OS's exception port: one NIC core drives it, beside a DPDK port.
absl::Status check_os_port(const Config& c) {
  if (c.os_port.empty()) return absl::OkStatus();
  if (c.backend != Backend::kDpdk)
    return invalid("os_port", c.os_port, "needs a DPDK port (backend kDpdk): the io_uring socket has the OS's own path");
  if (c.nic_lcores > 1) return invalid("os_port", c.os_port, "one NIC core only (nic_lcores=1)");
  return absl::OkStatus();
}

// A simulated host's memory system: its spec names one (runtime/host/host_memory.h).
absl::Status check_memory_model(const Config& c) {
  if (c.memory_model.empty()) return absl::OkStatus();
  absl::StatusOr<HostMemory> m = HostMemory::parse(c.memory_model, 1);
  return m.ok() ? absl::OkStatus() : m.status();
}

// The transports (NDP, Homa) and their timers.
absl::Status check_transport(const Config& c) {
  if (c.rtt_packets == 0) return invalid("rtt_packets", c.rtt_packets, "must be at least 1");
  if (c.transport != TransportProtocol::kNdp && c.transport != TransportProtocol::kHoma)
    return invalid("transport", static_cast<int>(c.transport), "kNdp or kHoma");
  if (c.transport == TransportProtocol::kHoma && c.backend == Backend::kUring)
    return invalid("transport", "homa",
                   "ndp with backend=uring: the UDP envelope carries neither the IPv4 protocol "
                   "number nor the TOS (Homa's priority); use a DPDK port for Homa");
  if (c.rtt_bytes == 0 || c.rtt_bytes > kMaxMessageBytes)
    return invalid("rtt_bytes", c.rtt_bytes, absl::StrCat("must be 1..", kMaxMessageBytes));
  if (c.overcommit == 0 || c.overcommit > 64) return invalid("overcommit", c.overcommit, "must be 1..64");
  if (c.homa_unsched_cutoffs.size() != 3)
    return invalid("homa_unsched_cutoffs", c.homa_unsched_cutoffs.size(),
                   "three ascending byte counts (priorities 7, 6, 5; longer messages 4)");
  for (size_t i = 1; i < c.homa_unsched_cutoffs.size(); ++i)
    if (c.homa_unsched_cutoffs[i] < c.homa_unsched_cutoffs[i - 1])
      return invalid("homa_unsched_cutoffs", c.homa_unsched_cutoffs[i], "must be ascending");
  if (!(c.rto_us > 0)) return invalid("rto_us", c.rto_us, "must be > 0");
  if (!(c.ack_hold_us >= 0) || !(c.ack_hold_us < c.rto_us / 2))
    return invalid("ack_hold_us", c.ack_hold_us,
                   "must be >= 0 and below half of --rto_us (a held ACK must reach the sender before it retransmits)");
  if (!(c.rto_max_ms > 0)) return invalid("rto_max_ms", c.rto_max_ms, "must be > 0");
  if (!(c.peer_dead_ms > 0)) return invalid("peer_dead_ms", c.peer_dead_ms, "must be > 0");
  if (!(c.link_gbps > 0)) return invalid("link_gbps", c.link_gbps, "must be > 0");
  return c.faults.validate();
}

// Core selection, the thread scheduler and polling.
absl::Status check_scheduling(const Config& c) {
  if (c.core_select != CoreSelectPolicy::kJbsq && c.core_select != CoreSelectPolicy::kRss &&
      c.core_select != CoreSelectPolicy::kStatic && c.core_select != CoreSelectPolicy::kRandom)
    return invalid("core_select", static_cast<int>(c.core_select), "kJbsq, kRss, kStatic or kRandom");
  if (c.jbsq_n == 0) return invalid("jbsq_n", c.jbsq_n, "JBSQ needs n >= 1 (n = 1 is a single queue)");
  // With N NIC cores choosing at once a thread may hold n + N - 1 (docs/design.md §7).
  if (c.jbsq_n + c.nic_lcores - 1 > c.fifo_messages)
    return invalid(
        "jbsq_n", c.jbsq_n,
        absl::StrCat(
            "must not exceed fifo_messages=", c.fifo_messages,
            c.nic_lcores > 1 ? absl::StrCat(" less nic_lcores - 1 = ", c.nic_lcores - 1) : ""));
  if (c.global_queue_messages < 2 || c.global_queue_messages > (1u << 20))
    return invalid("global_queue_messages", c.global_queue_messages, "must be 2..1048576");
  if (c.scheduler != SchedMode::kHts && c.scheduler != SchedMode::kTis)
    return invalid("scheduler", static_cast<int>(c.scheduler), "kHts or kTis");
  if (!(c.t0_ns > 0)) return invalid("t0_ns", c.t0_ns, "must be > 0");
  if (!(c.tis_period_ns > 0)) return invalid("tis_period_ns", c.tis_period_ns, "must be > 0");
  if (!(c.idle_timeout_ns >= 0)) return invalid("idle_timeout_ns", c.idle_timeout_ns, "must be >= 0");
  if (!(c.shared_nic_poll_ns >= 0))
    return invalid("shared_nic_poll_ns", c.shared_nic_poll_ns, "must be >= 0");
  if (!(c.async_preempt_us >= 0))
    return invalid("async_preempt_us", c.async_preempt_us, "must be >= 0 (0: never signal)");
  if (!(c.watchdog_ms >= 0)) return invalid("watchdog_ms", c.watchdog_ms, "must be >= 0 (0: off)");
  if (!(c.clock_drift_ppm > -500000 && c.clock_drift_ppm < 500000))
    return invalid("clock_drift_ppm", c.clock_drift_ppm, "must be within (-500000, 500000) (a clock at half or 1.5x speed)");
  if (c.poll != PollMode::kBusy && c.poll != PollMode::kAdaptive)
    return invalid("poll", static_cast<int>(c.poll), "kBusy or kAdaptive");
  if (!(c.poll_spin_us >= 0)) return invalid("poll_spin_us", c.poll_spin_us, "must be >= 0");
  return absl::OkStatus();
}

}  // namespace

absl::Status Config::validate() const {
  for (auto check : {check_cores_and_backend, check_buffers, check_transport, check_scheduling, check_context_slos,
                     check_memory_model, check_os_port, check_pipeline_files})
    if (absl::Status s = check(*this); !s.ok()) return s;
  return absl::OkStatus();
}

}  // namespace nanopu
