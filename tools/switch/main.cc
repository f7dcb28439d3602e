// nanopu-switch: an NDP-trimming output-queued switch between DPDK ports.
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include <csignal>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "tools/switch/software_switch.h"
#include "runtime/platform/capture.h"
#include "runtime/platform/eal.h"
#include "runtime/host/host_params.h"
#include "nanopu/address.h"
#include "nanopu/flags.h"
#include "nanopu/runtime.h"
#include "nic/idle/rx_waiter.h"

ABSL_FLAG(std::string, routes, "",
          "Static routes 'ip=port,...' (port = index in probe order); others are learned "
          "from source addresses.");
ABSL_FLAG(double, switch_gbps, 200, "Output link rate, Gb/s.");
ABSL_FLAG(uint32_t, queue_bytes, 81 * 1024, "Data queue per output port, bytes.");
ABSL_FLAG(bool, trimming, true, "NDP trimming when a data queue is full; false: tail drop.");
ABSL_FLAG(bool, priorities, false,
          "Eight strict-priority data queues per output, by the IPv4 TOS (Homa's data "
          "priority 0..7; NDP sends 0), sharing --queue_bytes; control always first.");
ABSL_FLAG(double, sample_us, 1, "Queue-occupancy sample period, us (with --occupancy_csv only).");
ABSL_FLAG(double, stall_drop_ms, 100,
          "Drop what is queued for a port that has taken nothing for this long (its host stopped "
          "draining; the transports retransmit). A port whose link is down (a memif peer gone) is "
          "dropped for at once.");
ABSL_FLAG(std::string, occupancy_csv, "", "Write queue occupancy over time here on exit.");

namespace {

using nanopu::apps::SoftwareSwitch;
using nanopu::apps::SwitchParams;
using nanopu::apps::SwitchPort;

int fail(const std::string& m) {
  std::fprintf(stderr, "nanopu-switch: %s\n", m.c_str());
  return 2;
}

// Every DPDK port, started; empty if one cannot be.
std::vector<SwitchPort> start_ports(rte_mempool* pool) {
  std::vector<SwitchPort> ports;
  uint16_t pid = 0;
  RTE_ETH_FOREACH_DEV(pid) {
    if (!nanopu::apps::start_switch_port(pid, pool)) return {};
    ports.push_back({pid, nullptr, nullptr});
  }
  return ports;
}

SwitchParams switch_params() {
  SwitchParams p;
  p.link_gbps = absl::GetFlag(FLAGS_switch_gbps);
  p.data_queue_bytes = absl::GetFlag(FLAGS_queue_bytes);
  p.trimming = absl::GetFlag(FLAGS_trimming);
  p.priorities = absl::GetFlag(FLAGS_priorities);
  p.stall_drop_ms = absl::GetFlag(FLAGS_stall_drop_ms);
  // Occupancy is sampled only for the CSV that asks for it: the samples
  // are kept in memory until exit, and a packet stuck for a peer that went
  // away keeps a queue non-empty, so the switch sampled every microsecond
  // for as long as it ran (24 GB asked for after five minutes, std::bad_alloc).
  p.sample_period_us = absl::GetFlag(FLAGS_occupancy_csv).empty() ? 0 : absl::GetFlag(FLAGS_sample_us);
  return p;
}

// --routes into sw; an error line, or "".
std::string add_routes(SoftwareSwitch& sw, size_t nports) {
  for (absl::string_view r : absl::StrSplit(absl::GetFlag(FLAGS_routes), ',', absl::SkipEmpty())) {
    std::pair<std::string, std::string> kv = absl::StrSplit(r, '=');
    std::optional<uint32_t> ip = nanopu::parse_ipv4(kv.first);
    uint32_t port = 0;
    if (!ip || !absl::SimpleAtoi(kv.second, &port) || port >= nports)
      return "--routes: expected ip=port with port < " + std::to_string(nports);
    sw.add_route(*ip, port);
  }
  return "";
}

// Forwards until Ctrl-C. Adaptive polling (--poll=adaptive): after
// --poll_spin_us without a packet and with every queue empty, sleep until a
// packet or a short timeout.
void forward(SoftwareSwitch& sw, const std::vector<SwitchPort>& ports, const nanopu::Config& config) {
  std::vector<uint16_t> port_ids;
  for (const SwitchPort& sp : ports) port_ids.push_back(sp.eth_port);
  nanopu::RxWaiter waiter(port_ids, -1);
  const bool adaptive = config.poll == nanopu::PollMode::kAdaptive;
  const auto spin_tsc = static_cast<uint64_t>(config.poll_spin_us * 1e-6 * static_cast<double>(rte_get_tsc_hz()));
  uint64_t idle_since = 0;
  while (!nanopu::Runtime::signalled()) {
    const unsigned moved = sw.poll();
    if (!adaptive) continue;
    if (moved != 0 || !sw.empty()) {
      if (idle_since != 0) waiter.reset();
      idle_since = 0;
      continue;
    }
    const uint64_t now = rte_rdtsc();
    if (idle_since == 0) idle_since = now;
    if (now - idle_since < spin_tsc) continue;
    // still_idle forwards anything that came in meanwhile (and then says no).
    (void)waiter.sleep(10000, [&] { return sw.poll() == 0 && sw.empty(); });
  }
}

void print_counters(const SoftwareSwitch& sw, bool priorities) {
  const auto& c = sw.counters();
  const std::pair<const char*, uint64_t> counters[] = {
      {"rx", c.rx}, {"forwarded", c.forwarded}, {"trimmed", c.trimmed}, {"tail_dropped", c.tail_dropped},
      {"control_dropped", c.control_dropped}, {"no_route", c.no_route}, {"not_ipv4", c.not_ipv4},
      {"dropped_port_down", c.dropped_port_down}, {"dropped_stalled", c.dropped_stalled}};
  for (const auto& [name, value] : counters)
    std::fprintf(stderr, "switch.%s %llu\n", name, static_cast<unsigned long long>(value));
  if (priorities)
    for (uint32_t i = 0; i < nanopu::apps::kSwitchPriorities; ++i)
      if (c.data_by_priority[i] != 0)
        std::fprintf(stderr, "switch.data_priority%u %llu\n", i, static_cast<unsigned long long>(c.data_by_priority[i]));
}

}  // namespace

int main(int argc, char** argv) {
  nanopu::init_flags_usage(
      "an NDP-trimming software switch between DPDK ports (--priorities: eight strict-priority\n"
      "data queues by TOS, for Homa).\n"
      "  nanopu-switch --lcores=0 --vdev='net_memif0,role=server,socket=/tmp/s0.sock;"
      "net_memif1,role=server,socket=/tmp/s1.sock' --routes=10.0.0.1=0,10.0.0.2=1");
  nanopu::parse_flags(argc, argv);
  absl::StatusOr<nanopu::Config> config = nanopu::Config::from_flags();
  if (!config.ok()) return fail(std::string(config.status().message()));
  // The switch serves no telemetry commands of its own (it prints its
  // counters at exit), so it keeps the EAL's telemetry thread off.
  config->telemetry = false;
  if (absl::Status s = nanopu::eal_init(nanopu::eal_params(*config)); !s.ok()) return fail(std::string(s.message()));
  rte_mempool* pool = rte_pktmbuf_pool_create("switch_pool", config->mbufs, 256, 0,
                                              RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
  if (pool == nullptr) return fail("cannot create the mempool; lower --mbufs");
  const std::vector<SwitchPort> ports = start_ports(pool);
  if (ports.size() < 2) return fail("a switch needs at least two ports (--vdev), each one started");
  const SwitchParams p = switch_params();
  if (p.link_gbps <= 0) return fail("--switch_gbps must be > 0");
  if (!(p.stall_drop_ms > 0)) return fail("--stall_drop_ms must be > 0");
  SoftwareSwitch sw(p, ports, pool);
  if (std::string bad = add_routes(sw, ports.size()); !bad.empty()) return fail(bad);
  // --pcap: every port's frames in one file, one pcapng interface per port.
  std::unique_ptr<nanopu::Capture> capture;
  if (!config->pcap_path.empty()) {
    std::vector<uint16_t> ids;
    for (const SwitchPort& sp : ports) ids.push_back(sp.eth_port);
    absl::StatusOr<std::unique_ptr<nanopu::Capture>> c =
        nanopu::Capture::start(config->pcap_path, ids, config->pcap_snap_bytes);
    if (!c.ok()) return fail(std::string(c.status().message()));
    capture = std::move(*c);
  }
  nanopu::Runtime::install_signal_handlers();
  std::fprintf(stderr, "nanopu-switch: %zu ports, %.1f Gb/s, %u-byte queues, %s, %s; Ctrl-C stops\n",
               ports.size(), p.link_gbps, p.data_queue_bytes, p.trimming ? "trimming" : "tail drop",
               p.priorities ? "8 strict priorities by TOS" : "FIFO data");
  forward(sw, ports, *config);
  print_counters(sw, p.priorities);
  if (capture != nullptr) {
    std::fprintf(stderr, "capture.written %llu\ncapture.lost %llu\n",
                 static_cast<unsigned long long>(capture->written()), static_cast<unsigned long long>(capture->lost()));
    capture.reset();
  }
  const std::string csv = absl::GetFlag(FLAGS_occupancy_csv);
  if (!csv.empty() && !sw.write_csv(csv)) return fail("cannot write " + csv);
  return 0;
}
