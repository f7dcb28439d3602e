// nanopu-bench-services: the processes of one service's deployment (servers,
// nanopu-switch) and one nanopu-loadgen run against them per load point.
#pragma once

#include <sys/types.h>
#include <sys/wait.h>

#include <string>
#include <utility>
#include <vector>

namespace nanopu::bench {

// One load point's figures, read from nanopu-loadgen's JSON.
struct Point {
  double offered = 0;     // requests/s; 0 = closed loop
  double p50_us = -1, p99_us = -1;
  double modelled_mean_us = -1, modelled_p50_us = -1, modelled_p99_us = -1;
  // "measured": the modelled column replays this run's replies
  // (runtime/client_main/measured_model.h); "declared": the service's declared work.
  std::string modelled_source;
  double throughput = -1;  // replies/s
  bool clean = false;      // the loadgen exited 0 (no loss, no bad reply)
};

class Rig {
 public:
  // dir: where sockets, logs and the loadgen's JSON go; tag: this
  // deployment's prefix for its files there (rigs come and go in one dir).
  Rig(std::string dir, std::string tag) : dir_(std::move(dir)), tag_(std::move(tag)) {}
  ~Rig();
  Rig(const Rig&) = delete;
  Rig& operator=(const Rig&) = delete;

  // Starts a long-running process and waits for `ready` in its log.
  // Returns false (and keeps the log) if it does not come up in 60 s.
  [[nodiscard]] bool start(const std::string& name, const std::vector<std::string>& args,
                           const std::string& ready = "Ctrl-C stops");
  // Waits up to `seconds` for `text` in the log of a process start() ran.
  [[nodiscard]] bool wait_log(const std::string& name, const std::string& text, int seconds) const;
  // One nanopu-loadgen run with `args` (its JSON goes to the rig's dir).
  [[nodiscard]] Point run(std::vector<std::string> args, double offered);
  [[nodiscard]] std::string path(const std::string& file) const { return dir_ + "/" + tag_ + "-" + file; }

 private:
  // A process start() ran: how to start it again.
  struct Proc {
    pid_t pid = -1;
    std::string name, ready;
    std::vector<std::string> args;
    int restarts = 0;
  };
  // Starts again every process that has died since (a safety net from before
  // memif's teardown race was fenced, docs/design.md §9; a load generator
  // disconnects after every point). Says so on stderr.
  void restart_dead();
  bool launch(Proc& p);

  std::string dir_, tag_;
  std::vector<Proc> procs_;
  int runs_ = 0;
};

}  // namespace nanopu::bench
