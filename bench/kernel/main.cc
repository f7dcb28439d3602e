// nanopu-bench-kernel: nanopu without DPDK (the io_uring backend) beside
// nanopu on DPDK's PMDs and beside raw kernel UDP ping-pongs, one run, one
// machine (docs/design.md, "Backends"). Every nanopu row runs the real
// programs: nanopu-server (NIC loop and worker on CPU 1) and nanopu-loadgen
// (CPU 0), busy polling, 64-byte echo.
//
//   RTT p50/p99   closed loop, one request in flight
//   rate          replies per second with 16 requests in flight
//
// Transports: net_memif (shared memory), uring over 127.0.0.x, and, as root,
// uring, net_af_packet and net_af_xdp over a veth pair between two network
// namespaces. References: blocking, busy-polling and io_uring UDP ping-pongs
// over loopback. Target (issue 16): nanopu on uring within 1.5x of the best
// raw kernel ping-pong.
//
// Usage: nanopu-bench-kernel [--json=FILE] [--round_trips=N] [--quick]
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "bench/bench_table.h"
#include "bench/kernel/raw_udp.h"
#include "tests/support/netns.h"
#include "tests/support/subprocess.h"

namespace {

using nanopu::bench::RawUdpMode;
using nanopu::bench::Row;
using nanopu::testing::json_number;
using nanopu::testing::Netns;
using nanopu::testing::read_file;
using nanopu::testing::spawn;
using nanopu::testing::wait_for;
using nanopu::testing::wait_for_line;

struct Transport {
  std::string name;
  std::vector<std::string> server_args, client_args;  // after the program
  std::vector<std::string> server_prefix, client_prefix;  // `ip netns exec NS`
  uint64_t max_round_trips = UINT64_MAX;  // a slow transport's cap (its run stays under the timeout)
};

struct Measured {
  bool ok = false;
  double p50_us = 0, p99_us = 0, rate = 0;
  std::string why;
};

Measured measure(const Transport& t, uint64_t round_trips, const std::string& dir) {
  Measured m;
  const std::string slog = dir + "/kernel-server.log", clog = dir + "/kernel-load.log",
                    json = dir + "/kernel-load.json";
  std::vector<std::string> sargs = t.server_prefix;
  for (const std::string& a : {std::string(NANOPU_SERVER_BIN), std::string("--lcores=1"),
                               std::string("--app=echo"), std::string("--context=1")})
    sargs.push_back(a);
  sargs.insert(sargs.end(), t.server_args.begin(), t.server_args.end());
  const pid_t server = spawn(sargs, slog);
  if (server <= 0 || !wait_for_line(slog, "Ctrl-C stops", std::chrono::seconds(30))) {
    m.why = "server did not start: " + read_file(slog).substr(0, 300);
    if (server > 0) (void)wait_for(server, std::chrono::seconds(0));
    return m;
  }
  auto load = [&](const std::vector<std::string>& extra) -> std::string {
    std::vector<std::string> args = t.client_prefix;
    for (const std::string& a :
         {std::string(NANOPU_LOADGEN_BIN), std::string("--lcores=0"), std::string("--server_context=1"),
          std::string("--size=64"), std::string("--progress=false"), std::string("--calibrate=false"),
          std::string("--expect=echo"), "--json=" + json})
      args.push_back(a);
    args.insert(args.end(), t.client_args.begin(), t.client_args.end());
    args.insert(args.end(), extra.begin(), extra.end());
    unlink(json.c_str());
    const pid_t c = spawn(args, clog);
    if (c <= 0 || wait_for(c, std::chrono::seconds(120)) != 0) return "";
    return read_file(json);
  };
  std::string j = load({"--count=" + std::to_string(std::min(round_trips, t.max_round_trips)), "--outstanding=1"});
  if (!j.empty()) {
    m.p50_us = json_number(j, "p50") / 1e3;
    m.p99_us = json_number(j, "p99") / 1e3;
    j = load({"--duration=1", "--outstanding=16"});
    m.rate = json_number(j, "throughput_msgs_per_s");
    m.ok = !j.empty();
  }
  if (!m.ok) {
    const std::string log = read_file(clog);
    m.why = "load generator failed: " + log.substr(log.size() > 400 ? log.size() - 400 : 0);
  }
  kill(server, SIGTERM);
  (void)wait_for(server, std::chrono::seconds(30));
  return m;
}

}  // namespace

int main(int argc, char** argv) {
  std::string json;
  uint64_t round_trips = 20000;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--json=", 0) == 0) {
      json = a.substr(7);
    } else if (a.rfind("--round_trips=", 0) == 0) {
      round_trips = std::stoull(a.substr(14));
    } else if (a == "--quick") {
      round_trips = 2000;
    } else {
      std::fprintf(stderr,
                   "usage: nanopu-bench-kernel [--json=FILE] [--round_trips=N] [--quick]\n"
                   "  nanopu on the io_uring backend (kernel UDP) beside nanopu on net_memif,\n"
                   "  net_af_packet and net_af_xdp (veth, as root) and beside raw blocking,\n"
                   "  busy-polling and io_uring UDP ping-pongs; 64-byte echo, CPUs 0 and 1.\n"
                   "  Runs nanopu-server and nanopu-loadgen. --round_trips: per RTT figure\n"
                   "  (default 20000; --quick: 2000).\n");
      return a == "--help" ? 0 : 2;
    }
  }
  const std::string dir = "/tmp";
  const std::string tag = std::to_string(getpid());
  const std::string port = "--udp_port=" + std::to_string(30000 + getpid() % 20000);

  // References: the raw kernel path.
  double best_raw_p50 = 0;
  std::string best_raw;
  std::vector<Row> rows;
  for (RawUdpMode mode : {RawUdpMode::kBlocking, RawUdpMode::kBusyPoll, RawUdpMode::kUringWait,
                          RawUdpMode::kUringPoll}) {
    std::fprintf(stderr, "measuring raw UDP %s...\n", nanopu::bench::raw_udp_mode_name(mode));
    const auto r = nanopu::bench::raw_udp_ping_pong(mode, round_trips, 0, 1);
    const std::string name = std::string("raw UDP ") + nanopu::bench::raw_udp_mode_name(mode);
    if (!r.ok) {
      std::fprintf(stderr, "  %s: %s\n", name.c_str(), r.error.c_str());
      continue;
    }
    rows.push_back({name + " RTT p50", r.p50_us, "us", "", 0, "", true});
    rows.push_back({name + " RTT p99", r.p99_us, "us", "", 0, "", true});
    if (best_raw_p50 == 0 || r.p50_us < best_raw_p50) {
      best_raw_p50 = r.p50_us;
      best_raw = name;
    }
  }

  std::vector<Transport> transports = {
      {"memif (DPDK)",
       {"--vdev=net_memif0,role=server,socket=" + dir + "/kernel-" + tag + ".sock"},
       {"--vdev=net_memif0,role=client,socket=" + dir + "/kernel-" + tag + ".sock"}, {}, {}},
      {"uring 127.0.0.x",
       {"--backend=uring", "--ip=127.0.3.1", port},
       {"--backend=uring", "--ip=127.0.3.2", "--server_ip=127.0.3.1", port}, {}, {}},
      // SQPOLL: a kernel thread per ring polls the submission queue and
      // runs the completions' task work (no io_uring_enter to send). On two
      // CPUs those two threads share the CPUs with the busy pollers: round
      // trips of ~20 ms (a scheduler slice), so a short run.
      {"uring sqpoll 127.0.0.x",
       {"--backend=uring", "--uring_sqpoll", "--ip=127.0.4.1", port},
       {"--backend=uring", "--uring_sqpoll", "--ip=127.0.4.2", "--server_ip=127.0.4.1", port}, {}, {}, 200},
  };
  // Over a veth pair between namespaces (root only).
  std::unique_ptr<Netns> srv, cli;
  if (const std::string why = nanopu::testing::netns_unavailable(); why.empty()) {
    srv = std::make_unique<Netns>("npk" + tag + "s");
    cli = std::make_unique<Netns>("npk" + tag + "c");
    if (srv->ok() && cli->ok() && nanopu::testing::veth(*srv, "k0", *cli, "k0") &&
        nanopu::testing::run_ip("-n " + srv->name() + " addr add 10.78.0.1/24 dev k0") &&
        nanopu::testing::run_ip("-n " + cli->name() + " addr add 10.78.0.2/24 dev k0")) {
      const auto sp = srv->exec({}), cp = cli->exec({});
      transports.push_back({"uring veth", {"--backend=uring", "--ip=10.78.0.1", port},
                            {"--backend=uring", "--ip=10.78.0.2", "--server_ip=10.78.0.1", port}, sp, cp});
      transports.push_back({"af_packet veth (DPDK)", {"--vdev=net_af_packet0,iface=k0", "--ip=10.78.0.1"},
                            {"--vdev=net_af_packet0,iface=k0", "--ip=10.78.0.2", "--server_ip=10.78.0.1"},
                            sp, cp});
      transports.push_back({"af_xdp veth (DPDK)", {"--vdev=net_af_xdp0,iface=k0", "--ip=10.78.0.1"},
                            {"--vdev=net_af_xdp0,iface=k0", "--ip=10.78.0.2", "--server_ip=10.78.0.1"},
                            sp, cp});
    } else {
      std::fprintf(stderr, "nanopu-bench-kernel: could not make the veth namespaces; veth rows skipped\n");
    }
  } else {
    std::fprintf(stderr, "nanopu-bench-kernel: veth rows skipped: %s\n", why.c_str());
  }

  double memif_rate = 0;
  bool target_seen = false;
  for (const Transport& t : transports) {
    std::fprintf(stderr, "measuring nanopu on %s...\n", t.name.c_str());
    const Measured m = measure(t, round_trips, dir);
    if (!m.ok) {
      std::fprintf(stderr, "  nanopu on %s: %s\n", t.name.c_str(), m.why.c_str());
      continue;
    }
    const bool uring_loopback = t.name == "uring 127.0.0.x";
    const bool met = m.p50_us <= 1.5 * best_raw_p50;
    if (uring_loopback) target_seen = true;
    rows.push_back({"nanopu " + t.name + " RTT p50", m.p50_us, "us",
                    best_raw.empty() ? "" : best_raw + " p50", best_raw_p50,
                    uring_loopback && best_raw_p50 > 0 ? "<= 1.5x" : "", !uring_loopback || met});
    rows.push_back({"nanopu " + t.name + " RTT p99", m.p99_us, "us", "", 0, "", true});
    if (t.name == "memif (DPDK)") memif_rate = m.rate;
    rows.push_back({"nanopu " + t.name + " rate (16 in flight)", m.rate / 1e3, "k/s",
                    t.name == "memif (DPDK)" ? "" : "nanopu memif rate", t.name == "memif (DPDK)" ? 0 : memif_rate / 1e3,
                    "", true});
  }
  nanopu::bench::print_table("nanopu-bench-kernel: nanopu without DPDK beside DPDK PMDs and raw kernel UDP", rows);
  if (!json.empty() && !nanopu::bench::write_json(json, "nanopu-bench-kernel", rows)) {
    std::fprintf(stderr, "nanopu-bench-kernel: cannot write %s\n", json.c_str());
    return 1;
  }
  if (!target_seen) {
    std::fprintf(stderr, "nanopu-bench-kernel: nanopu on uring over loopback did not run (logs in %s/kernel-*.log)\n",
                 dir.c_str());
    return 1;
  }
  return 0;
}
