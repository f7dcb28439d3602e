// Runtime configuration: one emulated nanoPU host. Built in code (every field
// has a sensible default), or from command-line flags by a program that links
// nanopu::flags (include/nanopu/flags.h). Runtime::create() calls validate():
// a bad value comes back as an absl::Status naming the field and what it
// accepts; the library never exits or parses argv by itself.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "nanopu/address.h"
#include "nanopu/fault_spec.h"
#include "nanopu/limits.h"
#include "nanopu/policies.h"

namespace nanopu {

// The context whose messages the prototype's tester stamped
// (Config::tester_timestamps; docs/apps.md, "Timestamps for context 0x1234").
inline constexpr uint16_t kTesterStampContext = 0x1234;

struct Config {
  // --- EAL and port ---
  // What carries this host's frames: a DPDK port (vdevs, pci_devices, port)
  // or a kernel UDP socket on io_uring bound to ip:udp_port (no NIC, no
  // hugepage, no device probed; docs/design.md, "Backends").
  Backend backend = Backend::kDpdk;
  // kUring: the UDP port every host listens on and sends to. A host is its
  // IPv4 address, as on the wire (the app header has no port), so two hosts
  // on one machine take two addresses (127.0.0.2, 127.0.0.3, ...).
  uint16_t udp_port = 9099;
  // kUring: let a kernel thread submit for the NIC core (IORING_SETUP_SQPOLL):
  // no syscall per burst, one more busy thread.
  bool uring_sqpoll = false;
  // EAL lcores. The first nic_lcores are NIC cores; each further one is a
  // worker core. With no further one, each NIC core's lcore also runs a
  // worker core, the two taking turns (a single lcore: the NIC loop and
  // one worker, or shared_workers of them).
  std::vector<unsigned> lcores = {0};
  // NIC cores (docs/design.md §7, "Several NIC cores"): each owns the peers
  // whose address hashes to it, with their transport state; a frame
  // received on another core is handed to its owner. More than one needs
  // as many lcores at least, a DPDK port with that many TX queues, and
  // poll=kBusy.
  uint32_t nic_lcores = 1;
  // sPIN handlers (nanopu/spin.h) on EAL lcores of their own, as PsPIN's
  // HPUs beside its NIC pipeline (docs/design.md §12): each runs the
  // handlers of every n-th installed context, busy-polling. Empty: the NIC
  // core runs them. Not in lcores; live only (on a modelled clock the NIC
  // core runs them), with one NIC core.
  std::vector<unsigned> spin_hpu_lcores;
  // Each lcore's thread pinned to its CPU, or free to move (policies.h).
  Pinning pin = Pinning::kOn;
  // Single-lcore mode only: how many worker cores to emulate on that lcore,
  // taking turns (tests and small machines).
  uint32_t shared_workers = 1;
  // Optional EAL --lcores map (e.g. "0@0,1@1,2@1") used instead of -l, so
  // more lcores than CPUs can exist (tests).
  std::string eal_lcore_map;
  // DPDK virtual devices, e.g. "net_memif0,role=server,socket=/tmp/m.sock".
  std::vector<std::string> vdevs;
  // Real NICs (bound to vfio-pci) by PCI address, e.g. "0000:03:00.0"; the
  // EAL probes only these. Empty: no PCI device is touched.
  std::vector<std::string> pci_devices;
  // The usual DMA path to the OS (nanoPU (OSDI'21) §2; nic/link/os_path.h):
  // a DPDK device the kernel owns, e.g. "net_tap0,iface=np0" (its MAC set
  // to the port's; give the kernel interface the host's address). Frames of
  // no nanopu transport (ARP, ICMP, TCP, ...) go to it and its frames go out
  // of the port. One NIC core, a DPDK port. Empty: such frames are counted
  // and dropped.
  std::string os_port;
  // The ingress pipeline as a program (nanoPU (OSDI'21) §2's P4 pipeline;
  // nic/pipeline/swx_program.h): a file in DPDK's SWX spec language every
  // frame runs through before the fixed pipeline — its output port 0 the
  // fast path, 1 the OS (os_port; without one, dropped), 2 dropped (SWX's
  // `drop`), each counted; a port above 2 is the program's error (DPDK does
  // not check it). It costs the NIC core ~84 ns a frame beside the fixed
  // pipeline's ~31 (docs/design.md §1).
  // Empty: the fixed pipeline alone.
  std::string pipeline_program;
  // Its tables' first entries, one a line "TABLE ENTRY" (as DPDK reads an
  // entry: "transport match 0x99 action fast_path"). Runtime::
  // add_pipeline_entry adds more while the host runs.
  std::string pipeline_entries;
  // The egress pipeline as a program (the same paper's egress PISA
  // pipeline): every frame the NIC sends runs through it last, after
  // packetization and framing — output port 0 the wire, 1 and 2 dropped
  // (counted). It may rewrite a frame and prepend headers (a tunnel's:
  // nic/pipeline/programs/vxlan_encap.spec), at most the bytes of every
  // header it declares, which must fit a buffer's headroom (128); a frame
  // the transport keeps to send again, or one with less room before it, is
  // copied first. Empty: frames leave as framed.
  std::string egress_program;
  // Its tables' first entries, as pipeline_entries; Runtime::
  // add_egress_entry adds more while the host runs.
  std::string egress_entries;
  uint16_t port_index = 0;  // which DPDK port (in probe order) this host uses
  int32_t port_id = -1;     // code only: use this DPDK port id instead (tests' ring pairs)
  HugePages huge = HugePages::kAuto;
  std::string file_prefix;  // empty: "nanopu-<pid>", unique per process
  std::string extra_eal_args;  // space-separated, passed to the EAL as they are
  // run() waits this long for the port's link, and a memif client keeps
  // trying this long to reach its server. kLinkWaitAuto (the default): 10 s
  // for a port that reaches out to its peer (a memif client, an af_packet
  // or a NIC port), and without limit for one that waits for peers to come
  // (a memif role=server): a server with no client yet keeps waiting, and
  // Ctrl-C still stops it. 0: do not wait.
  static constexpr double kLinkWaitAuto = -1;
  double link_wait_s = kLinkWaitAuto;
  // When the link drops later (the peer process died), messages are held
  // this long for its return, their retransmit timers paused; then they time
  // out and are given up as usual. A role=client memif reconnects by itself.
  double link_hold_s = 10;
  uint32_t eal_log_level = 4;  // RTE_LOG_WARNING: only problems
  // Counters readable while the host runs, through DPDK telemetry
  // (dpdk-telemetry.py; docs/observability.md).
  bool telemetry = true;

  // --- Debugging ---
  // Non-empty: every frame the port receives and sends goes to this pcapng
  // file (docs/observability.md). Costs a copy and a write per burst.
  std::string pcap_path;
  uint32_t pcap_snap_bytes = 0;  // the most bytes kept of each frame; 0: all

  // --- Host identity (docs/wire.md) ---
  uint32_t ip = 0x0a000001;  // 10.0.0.1, host order
  MacAddress gateway_mac = kBroadcastMacAddress;  // next hop for unlearned peers

  // --- Buffers ---
  uint32_t mbufs = 16383;
  uint16_t rx_descriptors = 1024;
  uint16_t tx_descriptors = 1024;
  // Per-thread RX and TX FIFO depth, in messages (a thread also holds the
  // one it reads and the next, taken early).
  uint32_t fifo_messages = 256;
  // Small messages in the register path (nanoPU §2.1: netRX and netTX are
  // registers): a received message of up to 104 bytes reaches its thread
  // inside its RX FIFO entry, and one of up to 96 bytes a thread sends
  // leaves inside its TX FIFO entry, instead of in mbufs
  // (lib/contract/inline_msg.h); one NIC core only. false: every message in
  // an mbuf (the comparison of nanopu-bench-e2e).
  bool register_path = true;
  uint32_t max_message_bytes = kMaxMessageBytes;  // 1..65535 (64 packets of 1024 B)

  // --- Threads and transport ---
  uint32_t max_threads_per_core = 4;  // as the nanoPU prototype
  // Which transport this host's messages use; every host receives both
  // and answers a peer in the protocol it last spoke (docs/design.md §2, "Transports").
  TransportProtocol transport = TransportProtocol::kNdp;
  uint16_t rtt_packets = 2;           // NDP: packets a sender may send before a PULL
  // Homa (docs/wire.md, "Homa behaviour"; defaults: nic/transport/homa/homa_params.h).
  uint32_t rtt_bytes = 10240;         // unscheduled bytes before the first GRANT
  uint32_t overcommit = 8;            // senders holding scheduled grants at once (1..64)
  // Unscheduled priority cutoffs in bytes, ascending: <= [0] priority 7,
  // <= [1] 6, <= [2] 5, longer 4 (HomaModule's defaults).
  std::vector<uint32_t> homa_unsched_cutoffs = {200, 2800, 15000};
  // Grant only while the destination context has no message waiting for a
  // core; BUSY otherwise (issue 15 item 4, docs/design.md §2, "Transports").
  bool grant_when_core_free = false;
  uint32_t outbound_slots = 256;      // NDP: messages in flight (packetization buffer)
  uint32_t reassembly_slots = 256;    // NDP: messages being received (reassembly buffer)
  // Retransmit timeout: the floor of each peer's measured one (srtt +
  // 4 rttvar, RFC 6298) and the first guess; NDP's, and Homa's sender probe.
  double rto_us = 50;
  // The most a timeout grows to, measured or backed off (a peer whose round
  // trip is 20 ms is waited for, not flooded).
  double rto_max_ms = 1000;
  // A message is given up when its peer has sent nothing at all for this
  // long (docs/wire.md, "Slow and silent peers"), not after a count of
  // timeouts: a slow peer is not a dead one. Two seconds outlast a peer
  // process descheduled on a shared machine (tens of ms beside a CPU hog)
  // and still tell a caller of a dead peer within seconds; a call's own
  // deadline (rpc.h) tells it sooner. A live peer that never answers one
  // message (a context nobody serves) has it given up after 4x this.
  double peer_dead_ms = 2000;
  // NDP: hold the ACK of a whole message from a nanopu peer
  // this long for a DATA packet to that peer (its reply, the next request)
  // to carry (docs/wire.md, "Acknowledgements that ride on data"). 0: every
  // ACK leaves at once, as toward the prototype. Below rto_us / 2.
  double ack_hold_us = 5;
  // NDP: acknowledge a nanopu peer's multi-packet message with one ACK per
  // message per poll naming every packet received (docs/wire.md), not one
  // per packet. false: one per packet, as toward the prototype.
  bool coalesce_acks = true;
  double link_gbps = 200;             // PULL pacing: one MTU serialization time at this rate
  // Free a partial message whose sender went silent this long — never sooner
  // than the sender could still retransmit (4 x peer_dead_ms + rto_max_ms +
  // link_hold_s + 1 s), or the packets it already acknowledged would be lost.
  double reassembly_expiry_ms = 100;
  // Buffer shares (nic/reassembly/buffer_partition.h); 0 = default.
  uint32_t reserved_priority0_slots = 0;  // default: a quarter of the reassembly slots
  uint32_t context_slots = 0;             // default: half of the reassembly slots
  uint32_t context_packets = 0;           // default: a quarter of the mbufs
  FaultSpec faults;                   // fault-injecting wire on this port's RX (none by default)

  // --- Core selection (nanoPU (OSDI'21) §2.3, §3.2) ---
  CoreSelectPolicy core_select = CoreSelectPolicy::kJbsq;
  uint32_t jbsq_n = 2;                // JBSQ(n) bound per (core, context)
  uint32_t global_queue_messages = 4096;  // per-context global RX queue depth
  // SLO-aware admission (NEBULA (ISCA'20) §IV-B; docs/wire.md, "Rejected
  // for load"): a context's new message is rejected at once — its sender's
  // thread hears TxFailureReason::kRejected, a call CallStatus::kRejected —
  // when threads × (slo_ns / service_ns - 1) of its messages are already
  // ahead of it (queued, being received, or delivered and not done): it
  // would miss the SLO anyway. NDP only (a Homa message is NACKed as a full
  // context's). --context_slo=CONTEXT:SERVICE_US:SLO_US[,...].
  struct ContextSlo {
    uint16_t context = 0;
    double service_ns = 0;  // the context's mean service time
    double slo_ns = 0;      // the response time its callers are promised (> service_ns)
  };
  std::vector<ContextSlo> context_slos;
  // A simulated host's memory system (NEBULA (ISCA'20) §III; docs/design.md
  // §5, "NEBULA's memory system"): SYSTEM:BUFFERS — nebula_server or
  // nebula_simulation, with receive buffers per_connection, bounded or
  // ideal. Each message taken is charged its DRAM waits at the host's load
  // (counted time, nanopu-sim only). Empty: none.
  std::string memory_model;

  // --- Thread scheduler (nanoPU (OSDI'21) §2.2; tail-latency version §2.4) ---
  SchedMode scheduler = SchedMode::kHts;  // or kTis, the timer-interrupt baseline (§5.2.2)
  bool bounded_processing = true;     // demote priority 0 after t0
  DemotionMode demotion = DemotionMode::kPermanent;  // for good, or until msg_done
  double t0_ns = 1000;                // bounded message-processing time
  double idle_timeout_ns = 1000;      // rotate when all threads idle this long
  double tis_period_ns = 5000;        // TIS tick
  double shared_nic_poll_ns = 2000;   // single-lcore: safe points poll the NIC this often
  double async_preempt_us = 20;       // signal a worker that missed a safe point this long
  double watchdog_ms = 100;           // report a thread on one message this long (0: off)
  // A fault to test against (nanopu-sim draws it, issue 71): this host's
  // threads see a clock that runs this many parts per million fast (+) or
  // slow (-) — Thread::now_ns() and wait_for()'s timeouts, what leases and
  // election timers stand on. The NIC's own timers keep true time.
  double clock_drift_ppm = 0;

  // The prototype tester's timestamps on messages to and from context
  // 0x1234 (docs/apps.md, "Timestamps for context 0x1234"): the NIC writes the
  // arrival cycle into a received message's last 4 bytes, and [timestamp,
  // latency] into a sent message's last 8. Off: messages are never rewritten.
  bool tester_timestamps = false;

  // --- Waiting for work (docs/design.md §9) ---
  // kAdaptive gives the CPU back when idle (laptops, small VMs, CI, several
  // hosts on few CPUs). kBusy is the default: with no RX interrupt on the
  // usual PMDs (Debian's DPDK 22.11 has them for net_tap only) an idle
  // adaptive host takes up to 1 ms to notice a packet, a latency cost that
  // should be chosen, not suffered (nanopu-bench-idle measures it).
  PollMode poll = PollMode::kBusy;
  double poll_spin_us = 200;          // adaptive: poll this long without work before sleeping

  // Worker cores: lcores after the NIC cores', or one on each NIC core's
  // lcore when there are none (shared_workers on a single lcore).
  [[nodiscard]] size_t worker_count() const {
    if (lcores.size() == 1) return shared_workers;
    return shared_core() ? nic_lcores : lcores.size() - std::min<size_t>(nic_lcores, lcores.size());
  }
  // The NIC cores share their lcores with the worker cores.
  [[nodiscard]] bool shared_core() const { return lcores.size() <= nic_lcores; }
  [[nodiscard]] bool pins_lcores() const { return pin == Pinning::kOn; }

  // OK, or InvalidArgument with one line: the field, its value, what it accepts.
  [[nodiscard]] absl::Status validate() const;

  // Reads the command-line flags (after absl::ParseCommandLine) and validates.
  // Defined in nanopu::flags: only programs that link it have the flags.
  [[nodiscard]] static absl::StatusOr<Config> from_flags();
};

}  // namespace nanopu
