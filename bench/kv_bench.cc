// nanopu-bench-kv: the MICA key-value service's tail latency against offered
// load (nanoPU OSDI'21 §5.3, Figure 9), naive against register-file, and
// their closed-loop throughput (the paper: register-file ~30 % higher). It
// runs the real programs over net_memif: nanopu-server --app=kv|kv-naive
// (NIC loop and worker on CPU 1) and nanopu-loadgen --service=kv (CPU 0),
// busy polling, 10,000 keys, 50 % SETs. The raw reference, same run: the
// echo server's closed-loop throughput at the same bytes per request (a
// service that does no store work).
//
// Each point's modelled p99 (the timing model, in the loadgen's JSON) is
// printed beside the measured one; the model treats a request as a 290-byte
// echo and does not model the store's own work (README, "Known gaps").
//
// Usage: nanopu-bench-kv [--json=FILE] [--seconds=S per point, default 1]
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "bench/bench_table.h"
#include "tests/support/subprocess.h"

namespace {

using nanopu::testing::json_number;
using nanopu::testing::read_file;
using nanopu::testing::spawn;
using nanopu::testing::wait_for;
using nanopu::testing::wait_for_line;


struct Point {
  double rate = 0, p50_us = -1, p99_us = -1, modelled_p99_us = -1, throughput = -1;
  bool clean = false;
};

class Server {
 public:
  Server(const std::string& app, const std::string& dir) : dir_(dir), sock_(dir + "/kvbench.sock") {
    unlink(sock_.c_str());
    pid_ = spawn({NANOPU_SERVER_BIN, "--lcores=1", "--vdev=net_memif0,role=server,socket=" + sock_,
                  "--app=" + app},
                 dir + "/kvbench-server.log");
    ok_ = pid_ > 0 && wait_for_line(dir + "/kvbench-server.log", "Ctrl-C stops", std::chrono::seconds(60));
  }
  ~Server() {
    if (pid_ > 0) {
      kill(pid_, SIGTERM);
      (void)wait_for(pid_, std::chrono::seconds(30));
    }
    unlink(sock_.c_str());
  }
  [[nodiscard]] bool ok() const { return ok_; }
  // One loadgen run; extra: its load flags.
  Point run(const std::vector<std::string>& extra) const {
    std::vector<std::string> args = {NANOPU_LOADGEN_BIN, "--lcores=0",
                                     "--vdev=net_memif0,role=client,socket=" + sock_,
                                     "--progress=false", "--calibrate=false", "--drain_timeout=5",
                                     "--json=" + dir_ + "/kvbench.json"};
    args.insert(args.end(), extra.begin(), extra.end());
    Point p;
    unlink((dir_ + "/kvbench.json").c_str());  // a failed run leaves no stale figures
    const std::string log = dir_ + "/kvbench-load-" + std::to_string(runs_++) + ".log";
    const pid_t c = spawn(args, log);
    p.clean = wait_for(c, std::chrono::seconds(300)) == 0;
    const std::string j = read_file(dir_ + "/kvbench.json");
    if (j.empty()) {
      std::fprintf(stderr, "nanopu-bench-kv: a load run failed (log: %s)\n", log.c_str());
      return p;
    }
    p.p50_us = json_number(j, "p50") / 1e3;
    p.p99_us = json_number(j, "p99") / 1e3;
    p.throughput = json_number(j, "throughput_msgs_per_s");
    const size_t m = j.find("latency_ns_modelled");
    if (m != std::string::npos) p.modelled_p99_us = json_number(j, "p99", m) / 1e3;
    return p;
  }

 private:
  std::string dir_, sock_;
  pid_t pid_ = -1;
  bool ok_ = false;
  mutable int runs_ = 0;
};

}  // namespace

int main(int argc, char** argv) {
  std::string json;
  double seconds = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--json=", 0) == 0) {
      json = a.substr(7);
    } else if (a.rfind("--seconds=", 0) == 0) {
      seconds = std::stod(a.substr(10));
    } else {
      std::fprintf(stderr,
                   "usage: nanopu-bench-kv [--json=FILE] [--seconds=S]\n"
                   "  MICA key-value service over net_memif: p50/p99 against offered load for the\n"
                   "  naive and register-file variants (nanoPU Figure 9), closed-loop throughput of\n"
                   "  each beside the echo server's (runs nanopu-server and nanopu-loadgen)\n");
      return a == "--help" ? 0 : 2;
    }
  }
  const std::string dir = "/tmp";
  const std::string dur = "--duration=" + std::to_string(seconds);
  const std::vector<double> rates = {20e3, 50e3, 100e3, 150e3, 200e3, 250e3, 300e3, 400e3};
  std::vector<nanopu::bench::Row> rows;
  std::string curves;  // JSON: per variant, the points
  double echo_tput = -1;
  {
    std::fprintf(stderr, "reference: echo server, 290-byte requests, closed loop...\n");
    Server s("echo", dir);
    if (!s.ok()) return std::fprintf(stderr, "nanopu-bench-kv: the echo server did not start\n"), 1;
    echo_tput = s.run({"--size=290", "--outstanding=8", dur}).throughput;
  }
  double tput[2] = {-1, -1};
  const char* apps[2] = {"kv-naive", "kv"};
  std::printf("\nnanopu-bench-kv: p50/p99 round trip (us) against offered load, 10k keys, 50%% SETs\n");
  std::printf("%-10s %10s %10s %10s %14s %6s\n", "variant", "offered/s", "p50", "p99", "p99 modelled", "clean");
  for (int v = 0; v < 2; ++v) {
    std::fprintf(stderr, "%s: closed loop, then the load sweep...\n", apps[v]);
    Server s(apps[v], dir);
    if (!s.ok()) return std::fprintf(stderr, "nanopu-bench-kv: %s did not start\n", apps[v]), 1;
    tput[v] = s.run({"--service=kv", "--outstanding=8", dur}).throughput;
    double base_p99 = -1, doubled_at = -1;
    curves += std::string(v ? "," : "") + "\"" + apps[v] + "\":[";
    for (size_t i = 0; i < rates.size(); ++i) {
      Point p = s.run({"--service=kv", "--rate=" + std::to_string(static_cast<long>(rates[i])), dur});
      p.rate = rates[i];
      std::printf("%-10s %10.0f %10.2f %10.2f %14.3f %6s\n", apps[v], p.rate, p.p50_us, p.p99_us,
                  p.modelled_p99_us, p.clean ? "yes" : "NO");
      curves += std::string(i ? "," : "") + "{\"offered\":" + std::to_string(p.rate) +
                ",\"p50_us\":" + std::to_string(p.p50_us) + ",\"p99_us\":" + std::to_string(p.p99_us) +
                ",\"p99_us_modelled\":" + std::to_string(p.modelled_p99_us) +
                ",\"clean\":" + (p.clean ? "true" : "false") + "}";
      if (i == 0) base_p99 = p.p99_us;
      else if (doubled_at < 0 && base_p99 > 0 && p.p99_us >= 2 * base_p99) doubled_at = p.rate;
    }
    curves += "]";
    rows.push_back({std::string(apps[v]) + ": load where p99 doubles", doubled_at, "req/s",
                    "offered loads swept", rates.back(), "", true});
  }
  rows.insert(rows.begin(), {
      {"kv (register-file) closed-loop throughput", tput[1], "req/s", "kv-naive, same run", tput[0],
       "paper: ~1.3x naive", tput[0] > 0 && tput[1] >= 1.3 * tput[0]},
      {"kv-naive closed-loop throughput", tput[0], "req/s", "echo server, 290 B", echo_tput, "", true},
      {"kv (register-file) closed-loop throughput", tput[1], "req/s", "echo server, 290 B", echo_tput, "", true},
  });
  nanopu::bench::print_table("nanopu-bench-kv: MICA key-value service (measured)", rows);
  std::printf("  (a load where p99 doubles of -1: it never doubled within the loads swept)\n");
  if (!json.empty()) {
    if (!nanopu::bench::write_json(json, "nanopu-bench-kv", rows)) return 1;
    std::ofstream f(json + ".curves.json");
    f << "{" << curves << "}\n";
  }
  return tput[0] > 0 && tput[1] > 0 ? 0 : 1;
}
