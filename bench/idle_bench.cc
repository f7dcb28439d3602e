// nanopu-bench-idle: what adaptive polling costs and saves (docs/design.md
// §9), beside busy polling in the same run. It runs the real programs:
// nanopu-server (NIC loop and worker sharing CPU 1) and nanopu-loadgen
// (CPU 0), two processes over net_memif, both polling adaptively or busily.
//
//   idle CPU     CPU seconds the server uses in one idle second (/proc)
//   wake-up      round trip of requests 100 ms apart (the server fully asleep)
//   low load     round trip p50/p99 at 1000 requests/s (asleep between them)
//   closed loop  round trip p50 with one request in flight (never idle)
//
// Usage: nanopu-bench-idle [--json=FILE]
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "bench/bench_table.h"
#include "tests/support/subprocess.h"  // the multi-process tests' helpers

namespace {

using nanopu::testing::cpu_seconds;
using nanopu::testing::json_number;
using nanopu::testing::read_file;
using nanopu::testing::spawn;
using nanopu::testing::wait_for;
using nanopu::testing::wait_for_line;


struct Figures {
  double idle_cpu_s = -1, wake_p50_us = -1, low_p50_us = -1, low_p99_us = -1, closed_p50_us = -1;
};

Figures measure(const std::string& mode, const std::string& dir) {
  Figures f;
  const std::string sock = dir + "/idle-" + mode + ".sock";
  unlink(sock.c_str());
  const pid_t server = spawn({NANOPU_SERVER_BIN, "--lcores=1", "--vdev=net_memif0,role=server,socket=" + sock,
                              "--app=echo", "--poll=" + mode},
                             dir + "/idle-server-" + mode + ".log");
  (void)wait_for_line(dir + "/idle-server-" + mode + ".log", "Ctrl-C stops", std::chrono::seconds(60));
  auto load = [&](const std::vector<std::string>& extra) -> std::string {
    std::vector<std::string> args = {NANOPU_LOADGEN_BIN, "--lcores=0", "--poll=" + mode,
                                     "--vdev=net_memif0,role=client,socket=" + sock,
                                     "--progress=false", "--calibrate=false", "--drain_timeout=5",
                                     "--json=" + dir + "/idle-load.json"};
    args.insert(args.end(), extra.begin(), extra.end());
    const pid_t c = spawn(args, dir + "/idle-load-" + mode + ".log");
    if (wait_for(c, std::chrono::seconds(300)) != 0) return "";
    return read_file(dir + "/idle-load.json");
  };
  std::string j = load({"--count=20000", "--outstanding=1"});
  f.closed_p50_us = json_number(j, "p50") / 1e3;
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const double c0 = cpu_seconds(server);
  std::this_thread::sleep_for(std::chrono::seconds(1));
  f.idle_cpu_s = cpu_seconds(server) - c0;
  j = load({"--count=20", "--rate=10"});
  f.wake_p50_us = json_number(j, "p50") / 1e3;
  j = load({"--count=3000", "--rate=1000"});
  f.low_p50_us = json_number(j, "p50") / 1e3;
  f.low_p99_us = json_number(j, "p99") / 1e3;
  kill(server, SIGTERM);
  (void)wait_for(server, std::chrono::seconds(30));
  unlink(sock.c_str());
  return f;
}

}  // namespace

int main(int argc, char** argv) {
  std::string json;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--json=", 0) == 0) {
      json = a.substr(7);
    } else {
      std::fprintf(stderr,
                   "usage: nanopu-bench-idle [--json=FILE]\n"
                   "  adaptive vs busy polling of nanopu-server over net_memif: idle CPU, wake-up,\n"
                   "  low-load and closed-loop round trips (runs nanopu-server and nanopu-loadgen)\n");
      return a == "--help" ? 0 : 2;
    }
  }
  const std::string dir = "/tmp";
  std::fprintf(stderr, "measuring busy polling...\n");
  const Figures busy = measure("busy", dir);
  std::fprintf(stderr, "measuring adaptive polling...\n");
  const Figures adaptive = measure("adaptive", dir);
  using nanopu::bench::Row;
  std::vector<Row> rows = {
      {"idle CPU, server, per second idle", 1e3 * adaptive.idle_cpu_s, "CPU ms", "busy polling",
       1e3 * busy.idle_cpu_s, "<= 50 CPU ms", adaptive.idle_cpu_s >= 0 && adaptive.idle_cpu_s <= 0.05},
      {"wake-up RTT p50 (requests 100 ms apart)", adaptive.wake_p50_us, "us", "busy polling",
       busy.wake_p50_us, "", true},
      {"RTT p50 at 1000 req/s", adaptive.low_p50_us, "us", "busy polling", busy.low_p50_us, "", true},
      {"RTT p99 at 1000 req/s", adaptive.low_p99_us, "us", "busy polling", busy.low_p99_us, "", true},
      {"RTT p50 closed loop (never idle)", adaptive.closed_p50_us, "us", "busy polling",
       busy.closed_p50_us, "", true},
  };
  for (const Figures* f : {&busy, &adaptive})
    if (f->idle_cpu_s < 0 || f->wake_p50_us < 0 || f->low_p50_us < 0 || f->closed_p50_us < 0) {
      nanopu::bench::print_table("nanopu-bench-idle: adaptive vs busy polling", rows);
      std::fprintf(stderr, "nanopu-bench-idle: a run failed (logs in %s/idle-*.log)\n", dir.c_str());
      return 1;
    }
  nanopu::bench::print_table("nanopu-bench-idle: adaptive polling vs busy polling", rows);
  if (!json.empty() && !nanopu::bench::write_json(json, "nanopu-bench-idle", rows)) {
    std::fprintf(stderr, "nanopu-bench-idle: cannot write %s\n", json.c_str());
    return 1;
  }
  return 0;
}
