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
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "bench/bench_table.h"

extern char** environ;

namespace {

std::string read_file(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

pid_t spawn(const std::vector<std::string>& args, const std::string& log) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = -1;
  if (posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), environ) != 0) pid = -1;
  posix_spawn_file_actions_destroy(&fa);
  return pid;
}

int wait_exit(pid_t pid) {
  int st = 0;
  if (waitpid(pid, &st, 0) != pid) return -1;
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

double cpu_seconds(pid_t pid) {
  const std::string stat = read_file("/proc/" + std::to_string(pid) + "/stat");
  const size_t close = stat.rfind(')');
  if (close == std::string::npos) return -1;
  std::istringstream in(stat.substr(close + 2));
  std::string field;
  unsigned long long utime = 0, stime = 0;
  for (int i = 3; i <= 15 && in >> field; ++i) {
    if (i == 14) utime = std::stoull(field);
    if (i == 15) stime = std::stoull(field);
  }
  return static_cast<double>(utime + stime) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

// A number from the loadgen's JSON: "key":value.
double json_number(const std::string& json, const std::string& key) {
  const size_t at = json.find("\"" + key + "\":");
  return at == std::string::npos ? -1 : std::stod(json.substr(at + key.size() + 3));
}

struct Figures {
  double idle_cpu_s = -1, wake_p50_us = -1, low_p50_us = -1, low_p99_us = -1, closed_p50_us = -1;
  double timeouts = 0;
};

Figures measure(const std::string& mode, const std::string& dir) {
  Figures f;
  const std::string sock = dir + "/idle-" + mode + ".sock";
  unlink(sock.c_str());
  const pid_t server = spawn({NANOPU_SERVER_BIN, "--lcores=1", "--vdev=net_memif0,role=server,socket=" + sock,
                              "--app=echo", "--poll=" + mode},
                             dir + "/idle-server-" + mode + ".log");
  for (int i = 0; i < 600 && read_file(dir + "/idle-server-" + mode + ".log").find("Ctrl-C stops") ==
                                 std::string::npos;
       ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  auto load = [&](const std::vector<std::string>& extra) -> std::string {
    std::vector<std::string> args = {NANOPU_LOADGEN_BIN, "--lcores=0", "--poll=" + mode,
                                     "--vdev=net_memif0,role=client,socket=" + sock,
                                     "--progress=false", "--calibrate=false", "--drain_timeout=5",
                                     "--json=" + dir + "/idle-load.json"};
    args.insert(args.end(), extra.begin(), extra.end());
    const pid_t c = spawn(args, dir + "/idle-load-" + mode + ".log");
    if (wait_exit(c) != 0) return "";
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
  (void)wait_exit(server);
  const std::string slog = read_file(dir + "/idle-server-" + mode + ".log");
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
