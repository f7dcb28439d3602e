#include "runtime/host/host_params.h"

#include <algorithm>
#include <limits>

#include "lib/contract/clock.h"
#include "lib/wire/frame.h"

namespace nanopu {
namespace {

uint64_t tsc_from_ns(double ns) {
  return static_cast<uint64_t>(ns * static_cast<double>(clock::hz()) / 1e9);
}

}  // namespace

EalParams eal_params(const Config& c) {
  EalParams e;
  e.lcores = c.lcores;
  e.lcores.insert(e.lcores.end(), c.spin_hpu_lcores.begin(), c.spin_hpu_lcores.end());
  e.eal_lcore_map = c.eal_lcore_map;
  e.pin = c.pins_lcores();
  e.vdevs = c.vdevs;
  e.pci_devices = c.pci_devices;
  // The io_uring backend's mbufs live in ordinary memory: no hugepage is
  // touched, none need be reserved, no root is needed for them.
  e.huge = c.backend == Backend::kUring ? HugePages::kOff : c.huge;
  e.file_prefix = c.file_prefix;
  e.extra_eal_args = c.extra_eal_args;
  e.eal_log_level = c.eal_log_level;
  e.telemetry = c.telemetry;
  return e;
}

double link_wait_s(const Config& c, bool port_listens) {
  if (c.link_wait_s != Config::kLinkWaitAuto) return c.link_wait_s;
  return port_listens ? std::numeric_limits<double>::infinity() : kClientLinkWaitS;
}

PortParams port_params(const Config& c) {
  PortParams p;
  p.port_index = c.port_index;
  p.port_id = c.port_id;
  p.mbufs = c.mbufs;
  p.rx_descriptors = c.rx_descriptors;
  p.tx_descriptors = c.tx_descriptors;
  p.start_retry_s = link_wait_s(c, /*port_listens=*/false);  // a memif client's retries
  p.rx_interrupts = c.poll == PollMode::kAdaptive;
  p.backend = c.backend;
  p.vdevs = c.vdevs;
  p.ip = c.ip;
  p.udp_port = c.udp_port;
  p.uring_sqpoll = c.uring_sqpoll;
  p.queues = static_cast<uint16_t>(c.nic_lcores);
  return p;
}

TransportConfig transport_config(const Config& c, bool port_sends_indirect_mbufs, uint16_t incarnation) {
  TransportConfig t;
  TransportParams& common = t.common;
  common.outbound_slots = c.outbound_slots;
  common.reassembly_slots = c.reassembly_slots;
  common.rto_ticks = tsc_from_ns(c.rto_us * 1e3);
  // Neither below the floor: a timeout of rto_us is always allowed to fire
  // once (a test that sets a huge rto_us to keep timers quiet keeps them so).
  common.rto_max_ticks = tsc_from_ns(std::max(c.rto_max_ms * 1e6, c.rto_us * 1e3));
  common.peer_dead_ticks = tsc_from_ns(std::max(c.peer_dead_ms * 1e6, c.rto_us * 1e3));
  if (!port_sends_indirect_mbufs) common.copy_below_bytes = UINT16_MAX;  // every packet a copy
  // How long a live sender may stay silent and still retransmit: until it
  // gives up (at most 4 peer_dead of a peer that answers others, plus one
  // last timeout) plus the time it holds messages while its link is down
  // (link_hold_s), with a second to spare. A receiver keeps what it knows at least this
  // long: a delivered message's id (forgotten sooner, a late retransmission
  // would be delivered twice) and a partial message (freed sooner, the
  // packets it already acknowledged — which their sender has freed — would
  // be lost, and the message with them, in silence).
  const double patience_ns = 4 * c.peer_dead_ms * 1e6 + c.rto_max_ms * 1e6 + c.link_hold_s * 1e9 + 1e9;
  common.completion_memory_ticks = tsc_from_ns(patience_ns);
  common.reassembly_expiry_ticks = tsc_from_ns(std::max(c.reassembly_expiry_ms * 1e6, patience_ns));
  common.workers = static_cast<uint32_t>(c.worker_count());
  common.reserved_priority0_slots =
      c.reserved_priority0_slots != 0 ? c.reserved_priority0_slots : c.reassembly_slots / 4;
  common.context_slots = c.context_slots != 0 ? c.context_slots : std::max(1u, c.reassembly_slots / 2);
  // Each NIC core admits its share of a context's buffers: the pool is one.
  common.context_packets = c.context_packets != 0 ? c.context_packets
                                                  : std::max<uint32_t>(wire::kMaxPacketsPerMessage,
                                                                       c.mbufs / 4 / c.nic_lcores);
  common.incarnation = incarnation;

  NdpParams& n = t.ndp;
  n.rtt_packets = c.rtt_packets;
  n.ack_hold_ticks = tsc_from_ns(c.ack_hold_us * 1e3);
  n.coalesce_acks = c.coalesce_acks;
  // One MTU frame (1024 B payload + 64 B header + 24 B preamble/FCS/gap) on the wire.
  n.pull_interval_ticks =
      tsc_from_ns((wire::kSegmentBytes + wire::kFrameHeaderBytes + 24) * 8 / c.link_gbps);

  HomaParams& h = t.homa;
  h.rtt_bytes = c.rtt_bytes;
  h.overcommit = c.overcommit;
  for (size_t i = 0; i < h.unsched_cutoffs.size() && i < c.homa_unsched_cutoffs.size(); ++i)
    h.unsched_cutoffs[i] = c.homa_unsched_cutoffs[i];
  h.grant_when_core_free = c.grant_when_core_free;
  h.ack_hold_ticks = n.ack_hold_ticks;  // --ack_hold_us, as NDP's
  h.held_acks = n.held_acks;
  h.mtu_frame_ticks = n.pull_interval_ticks;  // one MTU frame at --link_gbps
  h.max_nic_queue_ticks = n.pull_interval_ticks;  // one frame queued at most (HomaModule's max_nic_queue_ns)
  // The receiver asks for missing data after half a timeout of silence,
  // before the sender's own timer would probe, so recovery is
  // receiver-driven as in Homa (§3.7). A switch that queues for longer than
  // that needs a larger --rto_us (a RESEND for data still queued sends it
  // twice; HomaModule waits milliseconds).
  h.resend_ticks = common.rto_ticks / 2;
  return t;
}

NicParams nic_params(const Config& c, const Port& port, uint16_t incarnation, uint32_t nic_core,
                     const std::array<MsgFifo*, kMaxNicCores>& inboxes) {
  NicParams p;
  p.nic_core = nic_core;
  p.nic_cores = c.nic_lcores;
  p.rx_queue =
      nic_core < port.rx_queues() ? static_cast<uint16_t>(nic_core) : NicParams::kNoRxQueue;
  p.tx_queue = static_cast<uint16_t>(nic_core);
  p.inboxes = inboxes;
  if (c.nic_lcores > 1 && c.shared_core()) p.local_worker = static_cast<int32_t>(nic_core);
  p.port_id = port.id();
  p.io = port.io();
  p.port_checks_ipv4 = port.checks_ipv4_checksums();
  p.host_ip = c.ip;
  p.host_mac = port.mac();
  p.gateway_mac = c.gateway_mac;
  p.faults = c.faults;
  p.transports = transport_config(c, port.sends_indirect_mbufs(), incarnation);
  p.transports.common.port_takes_kept = port.takes_kept_packets();
  p.protocol = c.transport == TransportProtocol::kHoma ? wire::kIpProtoHoma : wire::kIpProtoNdp;
  p.core_select = c.core_select;
  p.jbsq_n = c.jbsq_n;
  p.fifo_messages = c.fifo_messages;
  p.workers = static_cast<uint32_t>(c.worker_count());
  // A signal only reaches a worker on another core; on a shared core the
  // NIC runs only when the thread lets it.
  // NIC core 0 alone watches the workers (one signal, one report).
  p.async_preempt_after_tsc =
      c.shared_core() || nic_core != 0 ? 0 : tsc_from_ns(c.async_preempt_us * 1e3);
  // On a shared core a stuck thread stops the NIC loop too: nothing can watch.
  p.watchdog_tsc = c.shared_core() || nic_core != 0 ? 0 : tsc_from_ns(c.watchdog_ms * 1e6);
  p.defer_control = c.shared_core();
  p.control_after_data = c.backend == Backend::kUring;
  p.adaptive_poll = c.poll == PollMode::kAdaptive;
  p.stamp_context = c.tester_timestamps ? kTesterStampContext : NicParams::kNoStampContext;
  p.idle_spin_tsc = tsc_from_ns(c.poll_spin_us * 1e3);
  p.reconnect_link = port.reconnects() && nic_core == 0;  // one core restarts the port
  p.link_kernel_iface = port.kernel_iface();
  p.link_hold_tsc = tsc_from_ns(c.link_hold_s * 1e9);
  return p;
}

sched::WorkerParams worker_params(const Config& c, NicPollHook shared_nic) {
  sched::WorkerParams w;
  w.max_threads = c.max_threads_per_core;
  w.hts.mode = c.scheduler;
  w.hts.bounded = c.bounded_processing;
  w.hts.demotion = c.demotion;
  w.hts.t0 = tsc_from_ns(c.t0_ns);
  w.hts.idle_timeout = tsc_from_ns(c.idle_timeout_ns);
  w.hts.tis_period = tsc_from_ns(c.tis_period_ns);
  w.shared_nic = shared_nic;
  w.shared_nic_period_tsc = tsc_from_ns(c.shared_nic_poll_ns);
  w.clock_rate = 1 + c.clock_drift_ppm * 1e-6;
  return w;
}

}  // namespace nanopu
