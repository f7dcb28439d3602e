#include "bench/services/rig.h"

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>

#include "tests/support/subprocess.h"

namespace nanopu::bench {

using nanopu::testing::json_number;
using nanopu::testing::read_file;
using nanopu::testing::spawn;
using nanopu::testing::wait_for;
using nanopu::testing::wait_for_line;

Rig::~Rig() {
  // Loadgen-facing processes first, the switch (started first) last.
  for (auto it = procs_.rbegin(); it != procs_.rend(); ++it) {
    if (it->pid <= 0) continue;
    kill(it->pid, SIGTERM);
    (void)wait_for(it->pid, std::chrono::seconds(30));  // kills it after that
  }
}

bool Rig::launch(Proc& p) {
  const std::string log = path(p.name + (p.restarts ? "-restart" + std::to_string(p.restarts) : "") + ".log");
  p.pid = spawn(p.args, log);
  if (p.pid <= 0) return false;
  if (wait_for_line(log, p.ready, std::chrono::seconds(60))) return true;
  std::fprintf(stderr, "nanopu-bench-services: %s did not start (log: %s)\n", p.name.c_str(), log.c_str());
  return false;
}

bool Rig::start(const std::string& name, const std::vector<std::string>& args, const std::string& ready) {
  procs_.push_back({-1, name, ready, args, 0});
  return launch(procs_.back());
}

void Rig::restart_dead() {
  for (Proc& p : procs_) {
    int status = 0;
    if (p.pid <= 0 || waitpid(p.pid, &status, WNOHANG) != p.pid) continue;
    std::fprintf(stderr,
                 "nanopu-bench-services: %s died (%s %d; DPDK's memif PMD can crash a process whose "
                 "peer disconnects) — starting it again\n",
                 p.name.c_str(), WIFSIGNALED(status) ? "signal" : "exit status",
                 WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
    ++p.restarts;
    (void)launch(p);
  }
}

bool Rig::wait_log(const std::string& name, const std::string& text, int seconds) const {
  return wait_for_line(path(name + ".log"), text, std::chrono::seconds(seconds));
}

Point Rig::run(std::vector<std::string> args, double offered) {
  restart_dead();
  const std::string json = path("load.json");
  unlink(json.c_str());  // a failed run leaves no stale figures
  // Calibrated (about 15 ms a run): the modelled column is then built from
  // the run's own replies wherever the service allows it.
  args.insert(args.end(), {"--progress=false", "--json=" + json});
  const std::string log = path("load-" + std::to_string(runs_++) + ".log");
  Point p;
  p.offered = offered;
  const pid_t c = spawn(args, log);
  const int rc = c > 0 ? wait_for(c, std::chrono::seconds(300)) : -1;
  p.clean = rc == 0;
  if (!p.clean) std::fprintf(stderr, "nanopu-bench-services: nanopu-loadgen exited %d (log: %s)\n", rc, log.c_str());
  const std::string j = read_file(json);
  if (j.empty()) {
    std::fprintf(stderr, "nanopu-bench-services: a load run wrote no figures (log: %s)\n", log.c_str());
    return p;
  }
  p.p50_us = json_number(j, "p50") / 1e3;
  p.p99_us = json_number(j, "p99") / 1e3;
  p.throughput = json_number(j, "throughput_msgs_per_s");
  if (const size_t m = j.find("latency_ns_modelled"); m != std::string::npos) {
    p.modelled_mean_us = json_number(j, "mean", m) / 1e3;
    p.modelled_p50_us = json_number(j, "p50", m) / 1e3;
    p.modelled_p99_us = json_number(j, "p99", m) / 1e3;
    if (const size_t s = j.find("\"source\":\"", m); s != std::string::npos)
      p.modelled_source = j.substr(s + 10, j.find('"', s + 10) - (s + 10));
  }
  return p;
}

}  // namespace nanopu::bench
