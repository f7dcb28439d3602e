// nanopu's command-line flags and Config::from_flags() (target nanopu::flags).
// Kept out of the library proper so that a service linking nanopu::nanopu
// inherits no flag of ours (and no name that could clash with its own).
#include "nanopu/flags.h"

#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "absl/flags/flag.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

ABSL_FLAG(std::string, lcores, "0",
          "Comma-separated EAL lcores. The first --nic_lcores run NIC cores; each further one "
          "runs a worker core. One lcore runs the NIC loop and one worker together (tests, "
          "2-core machines).");
ABSL_FLAG(uint32_t, nic_lcores, 1,
          "NIC cores: the first this many of --lcores. Each owns the peers whose address "
          "hashes to it (their transport state); frames received on another core are handed "
          "to the owner. With exactly that many --lcores each also runs a worker. More than 1 "
          "needs a port with that many TX queues (not memif) and --poll=busy (docs/design.md §7).");
ABSL_FLAG(std::string, spin_hpu_lcores, "",
          "EAL lcores, not in --lcores, that run the sPIN handlers of the contexts a program "
          "installs (nanopu/spin.h), as PsPIN's HPUs: each busy-polls and takes every n-th "
          "context. Empty: the NIC core runs them. Live only (docs/design.md §12).");
ABSL_FLAG(std::string, pin, "on",
          "'on': each lcore pinned to its CPU (DPDK's way). 'off': the kernel may run it on any "
          "CPU, for machines where more busy processes than CPUs take turns (the netns runner "
          "sets it then): pinned there, a host can wait seconds behind a neighbour "
          "(docs/design.md §9).");
ABSL_FLAG(uint32_t, shared_workers, 1,
          "With a single lcore: worker cores emulated on it, taking turns with the NIC loop.");
ABSL_FLAG(std::string, backend, "dpdk",
          "What carries this host's frames: 'dpdk' (a DPDK port: --vdev or --pci) or 'uring' "
          "(a kernel UDP socket on io_uring at --ip:--udp_port; no NIC, no hugepage, no root "
          "needed; docs/design.md, \"Backends\").");
ABSL_FLAG(uint32_t, udp_port, 9099,
          "--backend=uring: the UDP port every host listens on and sends to. Hosts on one "
          "machine take distinct --ip addresses (127.0.0.2, 127.0.0.3, ...).");
ABSL_FLAG(bool, uring_sqpoll, false,
          "--backend=uring: a kernel thread submits for the NIC core (IORING_SETUP_SQPOLL): "
          "no syscall per burst, one more busy thread.");
ABSL_FLAG(std::string, vdev, "",
          "DPDK virtual device(s) to create, ';'-separated, e.g. "
          "'net_memif0,role=server,socket=/tmp/nanopu.sock' or 'net_ring0'.");
ABSL_FLAG(std::string, pci, "",
          "Real NIC(s) to use, by PCI address, ','-separated (bound to vfio-pci first: "
          "dpdk-devbind.py; deploy/cluster/ does both). Default: no PCI device is touched.");
ABSL_FLAG(uint32_t, port, 0, "Index of the DPDK port this host uses (probe order).");
ABSL_FLAG(std::string, huge, "auto",
          "Hugepages: 'auto' (use 2 MiB hugepages if reserved and mounted, else --no-huge), "
          "'on' (require them), 'off' (always --no-huge).");
ABSL_FLAG(std::string, file_prefix, "",
          "EAL --file-prefix. Default 'nanopu-<pid>', unique per process so two processes "
          "never share hugepage files.");
ABSL_FLAG(double, link_wait, -1,
          "Seconds to wait for the port's link to come up before threads start. -1 (default): "
          "10 s for a port that reaches its peer (a net_memif client waits for its server), "
          "without limit for a net_memif role=server, which waits for its first client until "
          "Ctrl-C. 0: do not wait.");
ABSL_FLAG(double, link_hold, 10,
          "Seconds a host whose link drops (its peer process died) holds its messages, "
          "retransmit timers paused, for the peer's return; then they time out and are given "
          "up as usual (--peer_dead_ms). 0: do not hold.");
ABSL_FLAG(std::string, eal_args, "", "Extra EAL arguments, space-separated, passed through.");
ABSL_FLAG(uint32_t, eal_log_level, 4, "DPDK log level (1 critical .. 8 debug).");
ABSL_FLAG(bool, telemetry, true,
          "Serve the host's counters over DPDK telemetry while it runs: "
          "dpdk-telemetry.py -f <file prefix>, then /nanopu/nic (docs/observability.md).");
ABSL_FLAG(std::string, pcap, "",
          "Write every frame this host's port receives and sends to this pcapng file "
          "(Wireshark/tshark; tools/wireshark/nanopu.lua dissects it). For debugging: "
          "each frame is copied and written on the NIC core.");
ABSL_FLAG(uint32_t, pcap_snap, 0, "With --pcap: bytes kept of each frame (0: all).");
ABSL_FLAG(std::string, ip, "10.0.0.1", "This host's IPv4 address.");
ABSL_FLAG(std::string, gateway_mac, "ff:ff:ff:ff:ff:ff",
          "Destination MAC for peers whose MAC has not been learned from their packets.");
ABSL_FLAG(uint32_t, mbufs, 16383, "Packet buffers in the port's mempool.");
ABSL_FLAG(uint32_t, fifo_messages, 256,
          "Depth of each thread's RX and TX FIFO, in messages.");
ABSL_FLAG(bool, register_path, true,
          "Small messages in the register path: one received of up to 104 bytes reaches its thread inside "
          "its RX FIFO entry, one sent of up to 96 bytes leaves inside its TX FIFO entry, no mbuf touched by "
          "the worker (one NIC core); false: every message in an mbuf.");
ABSL_FLAG(uint32_t, max_message_bytes, 65535,
          "Largest message a thread may send, in bytes (1..65535; 1024-byte packets).");
ABSL_FLAG(uint32_t, outbound_slots, 256, "NDP: messages this host may have in flight.");
ABSL_FLAG(uint32_t, reassembly_slots, 256,
          "NDP: messages this host may be receiving at once; beyond, packets are NACKed.");
ABSL_FLAG(double, rto_us, 50,
          "Retransmit timeout in us: the floor of each peer's measured timeout (srtt + 4 rttvar) "
          "and the first guess; backed off 2x per timeout without progress, up to --rto_max_ms.");
ABSL_FLAG(double, rto_max_ms, 1000, "The most a retransmit timeout grows to, measured or backed off, in ms.");
ABSL_FLAG(double, peer_dead_ms, 2000,
          "Give a message up when its peer has sent nothing at all for this long (a slow peer is "
          "not a dead one; docs/wire.md, \"Slow and silent peers\"); a live peer that never "
          "answers one message (a context nobody serves) has it given up after 4x this.");
ABSL_FLAG(double, ack_hold_us, 5,
          "NDP: hold the ACK of a whole message from a nanopu peer up to this long for a "
          "DATA packet to that peer (the reply, the next request) to carry; 0: ACK at once. Below "
          "--rto_us / 2 (docs/wire.md, \"Acknowledgements that ride on data\").");
ABSL_FLAG(bool, coalesce_acks, true,
          "NDP: acknowledge a nanopu peer's multi-packet message with one ACK per message per poll "
          "naming every packet received (docs/wire.md); false: an ACK per packet.");
ABSL_FLAG(double, link_gbps, 200,
          "Link rate for PULL pacing (one PULL per MTU serialization time), Gb/s.");
ABSL_FLAG(std::string, faults, "",
          "Fault-injecting wire in front of this host's port, e.g. "
          "'drop=0.1,dup=0.01,reorder=0.1,corrupt=0.01,trim=0.05,delay_us=5,seed=7'; "
          "ack_delay_us=D holds only control frames (a peer that acknowledges late) "
          "(include/nanopu/fault_spec.h lists each).");
ABSL_FLAG(uint32_t, reserved_priority0_slots, 0,
          "Reassembly slots only priority-0 contexts may use (0: a quarter of --reassembly_slots).");
ABSL_FLAG(std::string, context_slo, "",
          "SLO-aware admission, CONTEXT:SERVICE_US:SLO_US[,...]: a new message to CONTEXT is rejected "
          "at once (NACK|REJECT; its caller sees the call rejected for load) while threads x "
          "(SLO_US / SERVICE_US - 1) of its messages are ahead of it: it would miss the SLO anyway "
          "(NEBULA (ISCA'20) §IV-B; docs/wire.md). NDP only. E.g. 5:2:20 (a 2 us service, a 20 us SLO).");
ABSL_FLAG(std::string, os_port, "",
          "The usual path to the host's OS (nanoPU (OSDI'21) §2): a DPDK device the kernel owns, e.g. "
          "'net_tap0,iface=np0' (its MAC set to the port's; give the kernel interface the host's address). Frames "
          "of no nanopu transport (ARP, ICMP, TCP, other UDP) go to it, and the kernel's go out of the port, so "
          "ping, ARP and SSH work beside the fast path (docs/running.md, \"On a real NIC, beside your OS\"). One "
          "NIC core.");
ABSL_FLAG(std::string, pipeline, "",
          "The ingress pipeline as a program (nanoPU (OSDI'21) §2): a file in DPDK's SWX spec language every frame "
          "runs through first; output port 0 the fast path, 1 the OS (--os_port), 2 dropped (drop), counted; no other "
          "port (nic/pipeline/programs/nanopu.spec is nanopu's own decision). Errors name the line.");
ABSL_FLAG(std::string, pipeline_entries, "",
          "The --pipeline program's tables' first entries, one a line: TABLE ENTRY (e.g. 'transport match 0x99 "
          "action fast_path'; nic/pipeline/programs/nanopu.entries).");
ABSL_FLAG(std::string, egress_pipeline, "",
          "The egress pipeline as a program (nanoPU (OSDI'21) §2): a file in DPDK's SWX spec language every frame the "
          "NIC sends runs through last; output port 0 the wire, 1 and 2 dropped, counted. It may prepend headers, "
          "as many bytes as it declares, up to 128 (nic/pipeline/programs/vxlan_encap.spec: a VXLAN tunnel's "
          "egress). Errors name the line.");
ABSL_FLAG(std::string, egress_pipeline_entries, "",
          "The --egress_pipeline program's tables' first entries, one a line: TABLE ENTRY (as --pipeline_entries).");
ABSL_FLAG(std::string, memory_model, "",
          "A simulated host's memory system (nanopu-sim only), SYSTEM:BUFFERS[:get=G,value=V]: nebula_server (60 "
          "cores, 45 MB LLC, 128 GB/s) or nebula_simulation (16 cores, 16 MB, 31 GB/s), receive buffers "
          "per_connection (136 MB), bounded (NEBULA's) or ideal, and what a request asks of the memory: MICA's at "
          "GET share G and value size V bytes (default: a 512-byte SET): each message taken is charged its DRAM "
          "waits at the host's load (NEBULA (ISCA'20) §III; docs/design.md §5).");
ABSL_FLAG(uint32_t, context_slots, 0,
          "Reassembly slots one context may hold; beyond, its new messages are NACKed "
          "(0: half of --reassembly_slots).");
ABSL_FLAG(uint32_t, context_packets, 0,
          "Packets one context may have buffered in the NIC (0: a quarter of --mbufs).");
ABSL_FLAG(double, reassembly_expiry_ms, 100,
          "Free a partially received message whose sender has been silent this long; never "
          "sooner than the sender could still retransmit (4 x --peer_dead_ms + --rto_max_ms + "
          "--link_hold + 1 s): the packets it already acknowledged would be lost with it.");
ABSL_FLAG(uint32_t, max_threads_per_core, 4, "Most threads one worker core may run.");
ABSL_FLAG(uint32_t, rtt_packets, 2, "NDP: packets a sender sends before waiting for PULLs.");
ABSL_FLAG(std::string, transport, "ndp",
          "Transport of this host's messages: 'ndp' or 'homa'. Every host receives both (by "
          "IPv4 protocol number) and answers a peer in the protocol it last spoke.");
ABSL_FLAG(uint32_t, rtt_bytes, 10240,
          "Homa: bytes a sender sends unscheduled before the first GRANT (rounded up to "
          "1024-byte packets).");
ABSL_FLAG(uint32_t, overcommit, 8,
          "Homa: most senders holding scheduled grants at once at a receiver (1..64).");
ABSL_FLAG(std::string, homa_unsched_cutoffs, "200,2800,15000",
          "Homa: message-length cutoffs in bytes for the unscheduled priorities 7, 6, 5 "
          "(longer messages: 4; scheduled data: 3..0 by SRPT rank).");
ABSL_FLAG(bool, grant_when_core_free, false,
          "Homa: grant only while the destination context has no message waiting for a "
          "core (its JBSQ queues have room); answer BUSY otherwise.");
ABSL_FLAG(std::string, core_select, "jbsq",
          "How the NIC picks among cores whose threads share a context: 'jbsq' (JBSQ(n), "
          "nanoPU §3.2), 'rss' (hash of the source), 'static' (first bound core), 'random' (a core "
          "drawn per message: the random assignment JBSQ is compared with, §5.2.3).");
ABSL_FLAG(uint32_t, jbsq_n, 2, "JBSQ(n): most messages outstanding per (core, context).");
ABSL_FLAG(uint32_t, global_queue_messages, 4096,
          "Depth of each context's global RX queue (messages waiting for a JBSQ credit).");
ABSL_FLAG(std::string, scheduler, "hts",
          "Thread scheduler on each worker core: 'hts' (the nanoPU's: preempt on arrival of a "
          "better thread, t0 demotion) or 'tis' (switch only on a periodic tick, the paper's "
          "baseline).");
ABSL_FLAG(bool, bounded, true,
          "HTS: a priority-0 thread that spends over --t0_ns on one message drops to priority 1 "
          "(for how long: --demotion).");
ABSL_FLAG(std::string, demotion, "permanent",
          "HTS: a demoted thread stays at priority 1 for good ('permanent', the default: a thread "
          "whose every message overruns cannot delay well-behaved ones again and again) or gets "
          "priority 0 back at its msg_done ('until_done'). The nanoPU papers leave this open.");
ABSL_FLAG(double, t0_ns, 1000, "HTS bounded message-processing time t0, in ns.");
ABSL_FLAG(bool, tester_timestamps, false,
          "For the prototype's packet tester: the NIC stamps messages to and from context 0x1234 "
          "(4660) as its hardware did: the arrival cycle (3.2 GHz model clock, low 32 bits) in a "
          "received message's last 4 bytes; [that timestamp, cycles since] in a sent message's "
          "last 8 (docs/apps.md). Off: messages are never rewritten.");
ABSL_FLAG(double, idle_timeout_ns, 1000,
          "HTS: with no thread active, rotate between runnable threads after this long idle.");
ABSL_FLAG(double, tis_period_ns, 5000, "TIS tick period, in ns.");
ABSL_FLAG(double, shared_nic_poll_ns, 2000,
          "Single-lcore mode: how often a running thread's API calls also poll the NIC, in ns.");
ABSL_FLAG(double, watchdog_ms, 100,
          "Count and report a thread that stays on one message this long without msg_done "
          "(needs a dedicated NIC lcore). 0: off.");
ABSL_FLAG(double, clock_drift_ppm, 0,
          "A fault to test against: the threads' clock (Thread::now_ns, wait_for) runs this many parts "
          "per million fast (+) or slow (-); the NIC's timers keep true time. nanopu-sim's dst draws it "
          "(--fault_clock_ppm).");
ABSL_FLAG(double, async_preempt_us, 20,
          "Signal a worker whose thread (one that allowed asynchronous preemption) has not "
          "reached a safe point this long after a preemption was due. 0: never signal.");

ABSL_FLAG(std::string, poll, "busy",
          "How pollers wait for work: 'busy' (never sleep: a CPU per poller, lowest latency) or "
          "'adaptive' (spin --poll_spin_us, then sleep until the next packet or message, up to "
          "1 ms on PMDs without RX interrupts: gives the CPU back when idle, so hosts can share "
          "CPUs).");
ABSL_FLAG(double, poll_spin_us, 200, "Adaptive polling: microseconds without work before sleeping.");

namespace nanopu {
namespace {

// Config::validate() names Config fields ("Config.jbsq_n=0: ..."); on the
// command line the user typed a flag, so say that instead.
absl::Status in_flag_terms(const absl::Status& s) {
  absl::string_view m = s.message();
  if (!absl::ConsumePrefix(&m, "Config.")) return s;
  static constexpr std::pair<absl::string_view, absl::string_view> kRenamed[] = {
      {"vdevs", "vdev"},         {"port_index", "port"},     {"extra_eal_args", "eal_args"},
      {"link_wait_s", "link_wait"}, {"link_hold_s", "link_hold"}, {"bounded_processing", "bounded"}};
  for (const auto& [field, flag] : kRenamed)
    if (absl::ConsumePrefix(&m, field)) return absl::Status(s.code(), absl::StrCat("--", flag, m));
  return absl::Status(s.code(), absl::StrCat("--", m));
}

// A string flag through its parser: the typed value, or an error naming the
// flag, what was given and what it accepts.
template <typename T, typename Parse>
absl::Status parse_flag(absl::string_view flag, const std::string& text, Parse parse,
                        absl::string_view accepted, T* out) {
  std::optional<T> v = parse(text);
  if (!v) return absl::InvalidArgumentError(absl::StrCat("--", flag, "='", text, "': ", accepted));
  *out = *v;
  return absl::OkStatus();
}

}  // namespace

namespace {

// Cores, the port or socket, the EAL, the link, capture, addresses.
absl::Status read_host_flags(Config& c) {
  c.lcores.clear();
  for (absl::string_view part : absl::StrSplit(absl::GetFlag(FLAGS_lcores), ',',
                                               absl::SkipWhitespace())) {
    unsigned v = 0;
    if (!absl::SimpleAtoi(part, &v))
      return absl::InvalidArgumentError(absl::StrCat(
          "--lcores='", absl::GetFlag(FLAGS_lcores), "': expected numbers like 0 or 0,1"));
    c.lcores.push_back(v);
  }
  c.spin_hpu_lcores.clear();
  for (absl::string_view part : absl::StrSplit(absl::GetFlag(FLAGS_spin_hpu_lcores), ',', absl::SkipWhitespace())) {
    unsigned v = 0;
    if (!absl::SimpleAtoi(part, &v))
      return absl::InvalidArgumentError(absl::StrCat("--spin_hpu_lcores='", absl::GetFlag(FLAGS_spin_hpu_lcores),
                                                     "': expected numbers like 2 or 2,3"));
    c.spin_hpu_lcores.push_back(v);
  }
  if (absl::Status s = parse_flag("pin", absl::GetFlag(FLAGS_pin), parse_pinning, "use on or off", &c.pin);
      !s.ok())
    return s;
  c.shared_workers = absl::GetFlag(FLAGS_shared_workers);
  c.nic_lcores = absl::GetFlag(FLAGS_nic_lcores);
  if (absl::Status s = parse_flag("backend", absl::GetFlag(FLAGS_backend), parse_backend,
                                  "use dpdk or uring", &c.backend);
      !s.ok())
    return s;
  const uint32_t udp_port = absl::GetFlag(FLAGS_udp_port);
  if (udp_port == 0 || udp_port > 0xffff)
    return absl::InvalidArgumentError(absl::StrCat("--udp_port=", udp_port, ": must be 1..65535"));
  c.udp_port = static_cast<uint16_t>(udp_port);
  c.uring_sqpoll = absl::GetFlag(FLAGS_uring_sqpoll);
  for (absl::string_view v :
       absl::StrSplit(absl::GetFlag(FLAGS_vdev), ';', absl::SkipWhitespace()))
    c.vdevs.emplace_back(v);
  for (absl::string_view d : absl::StrSplit(absl::GetFlag(FLAGS_pci), ',', absl::SkipWhitespace()))
    c.pci_devices.emplace_back(d);
  const uint32_t port = absl::GetFlag(FLAGS_port);
  if (port > 0xffff) return absl::InvalidArgumentError("--port: too large");
  c.port_index = static_cast<uint16_t>(port);
  if (absl::Status s = parse_flag("huge", absl::GetFlag(FLAGS_huge), parse_huge_pages,
                                  "use auto, on or off", &c.huge);
      !s.ok())
    return s;
  c.file_prefix = absl::GetFlag(FLAGS_file_prefix);
  c.extra_eal_args = absl::GetFlag(FLAGS_eal_args);
  c.link_wait_s = absl::GetFlag(FLAGS_link_wait);
  c.link_hold_s = absl::GetFlag(FLAGS_link_hold);
  c.eal_log_level = absl::GetFlag(FLAGS_eal_log_level);
  c.telemetry = absl::GetFlag(FLAGS_telemetry);
  c.pcap_path = absl::GetFlag(FLAGS_pcap);
  c.pcap_snap_bytes = absl::GetFlag(FLAGS_pcap_snap);
  if (absl::Status s = parse_flag("ip", absl::GetFlag(FLAGS_ip), parse_ipv4, "expected a.b.c.d", &c.ip);
      !s.ok())
    return s;
  if (absl::Status s = parse_flag("gateway_mac", absl::GetFlag(FLAGS_gateway_mac), parse_mac,
                                  "expected aa:bb:cc:dd:ee:ff", &c.gateway_mac);
      !s.ok())
    return s;
  return absl::OkStatus();
}

// --context_slo's CONTEXT:SERVICE_US:SLO_US[,...] (Config::context_slos);
// Config::validate() judges the values.
absl::StatusOr<std::vector<Config::ContextSlo>> parse_context_slos(absl::string_view text) {
  std::vector<Config::ContextSlo> out;
  if (text.empty()) return out;
  for (absl::string_view item : absl::StrSplit(text, ',')) {
    std::vector<absl::string_view> f = absl::StrSplit(item, ':');
    uint32_t context = 0;
    double service_us = 0, slo_us = 0;
    if (f.size() != 3 || !absl::SimpleAtoi(f[0], &context) || context > 0xffff ||
        !absl::SimpleAtod(f[1], &service_us) || !absl::SimpleAtod(f[2], &slo_us))
      return absl::InvalidArgumentError(absl::StrCat("--context_slo: '", item,
                                                     "' is not CONTEXT:SERVICE_US:SLO_US (e.g. 5:2:20)"));
    out.push_back({static_cast<uint16_t>(context), service_us * 1e3, slo_us * 1e3});
  }
  return out;
}

// Buffers and the transports.
absl::Status read_transport_flags(Config& c) {
  c.mbufs = absl::GetFlag(FLAGS_mbufs);
  c.fifo_messages = absl::GetFlag(FLAGS_fifo_messages);
  c.register_path = absl::GetFlag(FLAGS_register_path);
  c.max_message_bytes = absl::GetFlag(FLAGS_max_message_bytes);
  c.max_threads_per_core = absl::GetFlag(FLAGS_max_threads_per_core);
  const uint32_t rtt = absl::GetFlag(FLAGS_rtt_packets);
  if (rtt > 0xffff) return absl::InvalidArgumentError("--rtt_packets: too large");
  c.rtt_packets = static_cast<uint16_t>(rtt);
  if (absl::Status s = parse_flag("transport", absl::GetFlag(FLAGS_transport),
                                  parse_transport_protocol, "use ndp or homa", &c.transport);
      !s.ok())
    return s;
  c.rtt_bytes = absl::GetFlag(FLAGS_rtt_bytes);
  c.overcommit = absl::GetFlag(FLAGS_overcommit);
  c.homa_unsched_cutoffs.clear();
  for (absl::string_view part : absl::StrSplit(absl::GetFlag(FLAGS_homa_unsched_cutoffs), ',')) {
    uint32_t v = 0;
    if (!absl::SimpleAtoi(part, &v))
      return absl::InvalidArgumentError(absl::StrCat(
          "--homa_unsched_cutoffs: '", part, "' is not a byte count (expected e.g. 200,2800,15000)"));
    c.homa_unsched_cutoffs.push_back(v);
  }
  c.grant_when_core_free = absl::GetFlag(FLAGS_grant_when_core_free);
  c.outbound_slots = absl::GetFlag(FLAGS_outbound_slots);
  c.reassembly_slots = absl::GetFlag(FLAGS_reassembly_slots);
  c.rto_us = absl::GetFlag(FLAGS_rto_us);
  c.ack_hold_us = absl::GetFlag(FLAGS_ack_hold_us);
  c.coalesce_acks = absl::GetFlag(FLAGS_coalesce_acks);
  c.rto_max_ms = absl::GetFlag(FLAGS_rto_max_ms);
  c.peer_dead_ms = absl::GetFlag(FLAGS_peer_dead_ms);
  c.link_gbps = absl::GetFlag(FLAGS_link_gbps);
  c.reassembly_expiry_ms = absl::GetFlag(FLAGS_reassembly_expiry_ms);
  absl::StatusOr<FaultSpec> faults = parse_fault_spec(absl::GetFlag(FLAGS_faults));
  if (!faults.ok()) return faults.status();
  c.faults = *faults;
  c.reserved_priority0_slots = absl::GetFlag(FLAGS_reserved_priority0_slots);
  c.context_slots = absl::GetFlag(FLAGS_context_slots);
  c.context_packets = absl::GetFlag(FLAGS_context_packets);
  absl::StatusOr<std::vector<Config::ContextSlo>> slos = parse_context_slos(absl::GetFlag(FLAGS_context_slo));
  if (!slos.ok()) return slos.status();
  c.context_slos = *slos;
  c.memory_model = absl::GetFlag(FLAGS_memory_model);
  c.os_port = absl::GetFlag(FLAGS_os_port);
  c.pipeline_program = absl::GetFlag(FLAGS_pipeline);
  c.pipeline_entries = absl::GetFlag(FLAGS_pipeline_entries);
  c.egress_program = absl::GetFlag(FLAGS_egress_pipeline);
  c.egress_entries = absl::GetFlag(FLAGS_egress_pipeline_entries);
  return absl::OkStatus();
}

// Core selection, the thread scheduler, polling.
absl::Status read_scheduling_flags(Config& c) {
  if (absl::Status s = parse_flag("core_select", absl::GetFlag(FLAGS_core_select),
                                  parse_core_select_policy, "use jbsq, rss, static or random", &c.core_select);
      !s.ok())
    return s;
  c.jbsq_n = absl::GetFlag(FLAGS_jbsq_n);
  c.global_queue_messages = absl::GetFlag(FLAGS_global_queue_messages);
  if (absl::Status s = parse_flag("scheduler", absl::GetFlag(FLAGS_scheduler), parse_sched_mode,
                                  "use hts or tis", &c.scheduler);
      !s.ok())
    return s;
  c.bounded_processing = absl::GetFlag(FLAGS_bounded);
  if (absl::Status s = parse_flag("demotion", absl::GetFlag(FLAGS_demotion), parse_demotion_mode,
                                  "use permanent or until_done", &c.demotion);
      !s.ok())
    return s;
  c.tester_timestamps = absl::GetFlag(FLAGS_tester_timestamps);
  c.t0_ns = absl::GetFlag(FLAGS_t0_ns);
  c.idle_timeout_ns = absl::GetFlag(FLAGS_idle_timeout_ns);
  c.tis_period_ns = absl::GetFlag(FLAGS_tis_period_ns);
  c.shared_nic_poll_ns = absl::GetFlag(FLAGS_shared_nic_poll_ns);
  c.async_preempt_us = absl::GetFlag(FLAGS_async_preempt_us);
  c.watchdog_ms = absl::GetFlag(FLAGS_watchdog_ms);
  c.clock_drift_ppm = absl::GetFlag(FLAGS_clock_drift_ppm);
  if (absl::Status s = parse_flag("poll", absl::GetFlag(FLAGS_poll), parse_poll_mode,
                                  "use busy or adaptive", &c.poll);
      !s.ok())
    return s;
  c.poll_spin_us = absl::GetFlag(FLAGS_poll_spin_us);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Config> Config::from_flags() {
  Config c;
  for (auto read : {read_host_flags, read_transport_flags, read_scheduling_flags})
    if (absl::Status s = read(c); !s.ok()) return s;
  if (absl::Status s = c.validate(); !s.ok()) return in_flag_terms(s);
  return c;
}

}  // namespace nanopu
