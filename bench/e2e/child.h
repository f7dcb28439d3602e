// Each end-to-end measurement runs in a child process of its own: DPDK's EAL
// starts once per process, and a fresh EAL (pools, ports, lcores) per
// measurement keeps one from disturbing the next.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace nanopu::bench {

// What a child sends back: a few numbers, or an error line.
struct ChildResult {
  double v[12] = {};
  uint64_t count = 0;
  char error[240] = {};

  void fail(const std::string& why) {
    std::strncpy(error, why.c_str(), sizeof error - 1);
  }
  [[nodiscard]] bool ok() const { return error[0] == '\0'; }
};

// Runs fn in a forked child and returns what it produced; an error if the
// child crashed or took longer than timeout_s (it is then killed).
[[nodiscard]] absl::StatusOr<ChildResult> run_in_child(const std::function<ChildResult()>& fn,
                                                       double timeout_s);

// Starts fn in a child that runs until it returns or gets SIGTERM (a server
// for a two-process measurement) and waits until fn calls ready() (its port
// is up: a memif client that connects earlier is refused for good).
// stop_child() ends it.
using ReadyFn = std::function<void()>;
[[nodiscard]] absl::StatusOr<pid_t> start_child(const std::function<void(const ReadyFn&)>& fn,
                                                double ready_timeout_s);
void stop_child(pid_t pid);

// The EAL of a child: these lcores (all on CPU 0 on a one-CPU machine, or
// as `lcore_map` places them, e.g. "0@0,1@1,2@0"), these virtual devices,
// hugepages if reserved.
[[nodiscard]] absl::Status init_child_eal(const std::vector<unsigned>& lcores,
                                          const std::vector<std::string>& vdevs,
                                          const std::string& lcore_map = "");

}  // namespace nanopu::bench
