// nanopu-bench-incast: N senders each send one message to one receiver at the
// same instant through nanopu-switch's engine (the nanoPU paper's incast:
// 80 senders, 1024 B messages, 81 KB bottleneck queue, 200 Gb/s). Measures
// the time until the last message has arrived, with NDP trimming (NACK|PULL
// recovers a trimmed packet within an RTT) and with plain tail drop (a dropped
// packet waits for the retransmit timer), and writes the bottleneck queue's
// occupancy over time as CSV. Hosts, switch and links all run in this process
// on one core; the link rate is lowered so serialization, not the emulator's
// own speed, sets the pace (see --switch_gbps).
#include <rte_cycles.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_ring.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/str_cat.h"
#include "tools/switch/software_switch.h"
#include "bench/bench_table.h"
#include "runtime/platform/eal.h"
#include "nanopu/flags.h"
#include "nanopu/runtime.h"

ABSL_FLAG(uint32_t, senders, 80, "Senders, one message each (the paper: 80).");
ABSL_FLAG(uint32_t, hosts, 0,
          "Emulated sender hosts the senders are spread over (DPDK caps ports at "
          "RTE_MAX_ETHPORTS). 0: one per sender, up to that cap.");
ABSL_FLAG(uint32_t, msg_bytes, 1024, "Message size, bytes.");
ABSL_FLAG(uint32_t, queue_bytes, 0,
          "Bottleneck data queue, bytes. 0: the paper's 81 KB scaled to the sender count.");
ABSL_FLAG(double, switch_gbps, 2,
          "Switch link rate, Gb/s. The paper's 200 Gb/s is faster than this emulator's own "
          "loop; at the default, serialization (4.5 us per packet) dominates.");
ABSL_FLAG(double, sender_rto_us, 1000, "Senders' NDP retransmit timeout, us.");
ABSL_FLAG(uint32_t, runs, 3, "Repetitions per mode (the median is reported).");
ABSL_FLAG(std::string, out, "build/bench-incast", "Prefix of the CSV and JSON outputs.");

namespace {

constexpr uint32_t kReceiverIp = 0x0a000001;
constexpr uint16_t kSinkContext = 1, kSourceContext = 2;

// A host's net_ring port, and the switch's end: the same two rings.
struct Link {
  uint16_t host_port;
  nanopu::apps::SwitchPort sw;
};
Link link(int n) {
  rte_ring* to_host = rte_ring_create(absl::StrCat("ia", n).c_str(), 4096, SOCKET_ID_ANY, 0);
  rte_ring* from_host = rte_ring_create(absl::StrCat("ib", n).c_str(), 4096, SOCKET_ID_ANY, 0);
  const int host = rte_eth_from_rings(absl::StrCat("inh", n).c_str(), &to_host, 1, &from_host, 1,
                                      SOCKET_ID_ANY);
  if (to_host == nullptr || from_host == nullptr || host < 0) {
    std::fprintf(stderr, "nanopu-bench-incast: cannot create port %d (DPDK allows %d)\n", n,
                 RTE_MAX_ETHPORTS);
    std::exit(1);
  }
  return {static_cast<uint16_t>(host), {0, from_host, to_host}};
}

struct RunResult {
  double completion_us = 0;
  uint64_t trimmed = 0, dropped = 0, timeouts = 0, retransmits = 0;
  uint32_t max_queue = 0;
  bool complete = false;
};

RunResult run_once(bool trimming, uint32_t senders, uint32_t hosts_n, rte_mempool* sw_pool,
                   int& port_n, const std::string& csv) {
  const uint32_t msg = absl::GetFlag(FLAGS_msg_bytes);
  std::vector<std::unique_ptr<nanopu::Runtime>> hosts;
  std::vector<nanopu::apps::SwitchPort> sw_ports;
  nanopu::apps::SwitchParams sp;
  sp.link_gbps = absl::GetFlag(FLAGS_switch_gbps);
  sp.trimming = trimming;
  sp.data_queue_bytes = absl::GetFlag(FLAGS_queue_bytes);
  if (sp.data_queue_bytes == 0) sp.data_queue_bytes = 81 * 1024 * senders / 80;
  sp.sample_period_us = 2;
  for (uint32_t i = 0; i <= hosts_n; ++i) {
    const Link l = link(port_n++);
    sw_ports.push_back(l.sw);
    nanopu::Config c;
    c.poll = nanopu::PollMode::kBusy;  // benchmarks poll: a core per poller
    c.lcores = {0};
    c.port_id = l.host_port;
    c.ip = i == 0 ? kReceiverIp : 0x0a000100 + i;
    c.mbufs = 2047;
    c.link_wait_s = 0;
    c.rto_us = absl::GetFlag(FLAGS_sender_rto_us);
    c.link_gbps = sp.link_gbps;
    auto rt = nanopu::Runtime::create(c);
    if (!rt.ok()) {
      std::fprintf(stderr, "nanopu-bench-incast: %s\n", std::string(rt.status().message()).c_str());
      std::exit(1);
    }
    hosts.push_back(std::move(*rt));
  }
  nanopu::apps::SoftwareSwitch sw(sp, sw_ports, sw_pool);
  for (uint32_t i = 0; i <= hosts_n; ++i) sw.add_route(i == 0 ? kReceiverIp : 0x0a000100 + i, i);

  uint32_t received = 0;
  uint64_t last_rx = 0;
  bool go = false;
  (void)hosts[0]->spawn([&](nanopu::Thread& t) {
    (void)t.bind(kSinkContext);
    while (received < senders && t.wait()) {
      last_rx = rte_rdtsc();
      t.msg_done();
      ++received;
    }
  });
  // Sender s is message s; the senders are spread over the sender hosts.
  for (uint32_t h = 1; h <= hosts_n; ++h) {
    (void)hosts[h]->spawn([&, h](nanopu::Thread& t) {
      (void)t.bind(kSourceContext);
      while (!go) t.idle();
      for (uint32_t s = h - 1; s < senders; s += hosts_n) {
        (void)t.write(nanopu::AppHeader{kReceiverIp, kSinkContext, static_cast<uint16_t>(msg)}.word());
        for (uint32_t w = 0; w < (msg + 7) / 8; ++w) (void)t.write(s * 1000 + w);
      }
    });
  }
  auto round = [&] {
    for (auto& h : hosts) h->poll_once();
    sw.poll();
  };
  for (int i = 0; i < 50; ++i) round();  // every thread bound and waiting
  sw.start_clock();
  const uint64_t t_go = rte_rdtsc();
  go = true;
  const uint64_t limit = t_go + 20 * rte_get_tsc_hz();
  while (received < senders && rte_rdtsc() < limit) round();
  RunResult r;
  r.complete = received == senders;
  r.completion_us = static_cast<double>(last_rx - t_go) * 1e6 / static_cast<double>(rte_get_tsc_hz());
  r.trimmed = sw.counters().trimmed;
  r.dropped = sw.counters().tail_dropped;
  r.max_queue = sw.max_data_bytes(0);
  for (uint32_t i = 1; i <= hosts_n; ++i) {
    r.timeouts += hosts[i]->nic_counters().tx_timeouts;
    r.retransmits += hosts[i]->nic_counters().tx_retransmits;
  }
  if (!csv.empty()) (void)sw.write_csv(csv);
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  nanopu::init_flags_usage(
      "incast through an NDP-trimming switch vs a tail-drop one.\n"
      "  nanopu-bench-incast [--senders=40] [--switch_gbps=2] [--out=build/bench-incast]");
  absl::ParseCommandLine(argc, argv);
  const uint32_t senders = absl::GetFlag(FLAGS_senders);
  if (senders == 0 || senders > 1000) {
    std::fprintf(stderr, "nanopu-bench-incast: --senders must be 1..1000\n");
    return 2;
  }
  // Ports: the receiver and each sender host; leave a few for DPDK's own.
  const uint32_t cap = RTE_MAX_ETHPORTS - 2;
  uint32_t hosts_n = absl::GetFlag(FLAGS_hosts);
  if (hosts_n == 0) hosts_n = std::min(senders, cap);
  if (hosts_n > cap || hosts_n > senders) {
    std::fprintf(stderr, "nanopu-bench-incast: --hosts must be 1..min(senders, %u)\n", cap);
    return 2;
  }
  nanopu::EalParams eal;
  eal.lcores = {0};
  eal.huge = nanopu::HugePages::kOff;  // many small hosts: plain memory is plenty
  if (absl::Status s = nanopu::eal_init(eal); !s.ok()) {
    std::fprintf(stderr, "nanopu-bench-incast: %s\n", std::string(s.message()).c_str());
    return 1;
  }
  rte_mempool* sw_pool = rte_pktmbuf_pool_create("incast_sw", 8191, 256, 0,
                                                 RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
  const std::string out = absl::GetFlag(FLAGS_out);
  int port_n = 0;
  auto median = [](std::vector<RunResult> v) {
    std::sort(v.begin(), v.end(), [](const RunResult& a, const RunResult& b) {
      return a.completion_us < b.completion_us;
    });
    return v[v.size() / 2];
  };
  std::vector<RunResult> trim, drop;
  for (uint32_t k = 0; k < absl::GetFlag(FLAGS_runs); ++k) {
    std::fprintf(stderr, "run %u: trimming...\n", k + 1);
    trim.push_back(run_once(true, senders, hosts_n, sw_pool, port_n, k == 0 ? out + "-trimming.csv" : ""));
    std::fprintf(stderr, "run %u: tail drop...\n", k + 1);
    drop.push_back(run_once(false, senders, hosts_n, sw_pool, port_n, k == 0 ? out + "-taildrop.csv" : ""));
  }
  const RunResult t = median(trim), d = median(drop);
  if (!t.complete || !d.complete) std::fprintf(stderr, "warning: a run did not complete in 20 s\n");
  using nanopu::bench::Row;
  std::vector<Row> rows = {
      {"last byte arrives, NDP trimming", t.completion_us, "us", "tail drop (timeouts only)", d.completion_us, "", true},
      {"speed-up of trimming (x)", t.completion_us > 0 ? d.completion_us / t.completion_us : 0, "x", "paper: about 3x", 3.0, "", true},
      {"trimmed packets", static_cast<double>(t.trimmed), "pkts", "tail-dropped packets", static_cast<double>(d.dropped), "", true},
      {"sender timeouts, trimming", static_cast<double>(t.timeouts), "", "sender timeouts, tail drop", static_cast<double>(d.timeouts), "", true},
      {"max bottleneck queue, trimming", static_cast<double>(t.max_queue), "bytes", "max queue, tail drop", static_cast<double>(d.max_queue), "", true},
  };
  nanopu::bench::print_table(absl::StrCat("Incast: ", senders, " senders on ", hosts_n, " hosts x ", absl::GetFlag(FLAGS_msg_bytes),
                                          " B -> 1 receiver, ", absl::GetFlag(FLAGS_switch_gbps), " Gb/s links"),
                             rows);
  std::printf("queue occupancy: %s-trimming.csv, %s-taildrop.csv\n", out.c_str(), out.c_str());
  (void)nanopu::bench::write_json(out + ".json", "incast", rows);
  return 0;
}
