#include "bench/e2e/child.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "runtime/platform/eal.h"

namespace nanopu::bench {
namespace {

// Forks a child that runs body(write end of a pipe) and exits without EAL
// clean-up (the process and its --in-memory EAL just end); returns the
// child's pid and the pipe's read end.
absl::StatusOr<std::pair<pid_t, int>> fork_child(const std::function<void(int)>& body) {
  int fds[2];
  if (pipe(fds) != 0) return absl::InternalError("pipe() failed");
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) return absl::InternalError("fork() failed");
  if (pid == 0) {
    close(fds[0]);
    body(fds[1]);
    std::fflush(nullptr);
    _exit(0);
  }
  close(fds[1]);
  return std::make_pair(pid, fds[0]);
}

}  // namespace

absl::StatusOr<ChildResult> run_in_child(const std::function<ChildResult()>& fn, double timeout_s) {
  absl::StatusOr<std::pair<pid_t, int>> child = fork_child([&](int fd) {
    const ChildResult r = fn();
    (void)!write(fd, &r, sizeof r);
  });
  if (!child.ok()) return child.status();
  const auto [pid, fd] = *child;
  ChildResult r;
  size_t got = 0;
  pollfd p{fd, POLLIN, 0};
  const int timeout_ms = static_cast<int>(timeout_s * 1e3);
  while (got < sizeof r) {
    if (poll(&p, 1, timeout_ms) <= 0) break;
    const ssize_t n = read(fd, reinterpret_cast<char*>(&r) + got, sizeof r - got);
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  close(fd);
  if (got < sizeof r) kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  if (got < sizeof r) {
    if (WIFSIGNALED(status) && WTERMSIG(status) != SIGKILL)
      return absl::InternalError(absl::StrCat("measurement crashed (signal ", WTERMSIG(status), ")"));
    return absl::DeadlineExceededError(
        absl::StrCat("measurement gave no result within ", timeout_s, " s"));
  }
  return r;
}

absl::StatusOr<pid_t> start_child(const std::function<void(const ReadyFn&)>& fn,
                                  double ready_timeout_s) {
  absl::StatusOr<std::pair<pid_t, int>> child = fork_child([&](int fd) {
    fn([fd] {
      const char c = 'r';
      (void)!write(fd, &c, 1);
    });
  });
  if (!child.ok()) return child.status();
  const auto [pid, fd] = *child;
  pollfd p{fd, POLLIN, 0};
  char c = 0;
  const bool ready = poll(&p, 1, static_cast<int>(ready_timeout_s * 1e3)) > 0 && read(fd, &c, 1) == 1;
  close(fd);
  if (!ready) {
    stop_child(pid);
    return absl::DeadlineExceededError("the server process did not come up");
  }
  return pid;
}

void stop_child(pid_t pid) {
  if (pid <= 0) return;
  kill(pid, SIGTERM);
  for (int i = 0; i < 200; ++i) {  // 2 s to finish, then forced
    if (waitpid(pid, nullptr, WNOHANG) == pid) return;
    usleep(10000);
  }
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
}

absl::Status init_child_eal(const std::vector<unsigned>& lcores,
                            const std::vector<std::string>& vdevs, const std::string& lcore_map) {
  EalParams c;
  c.lcores = lcores;
  c.vdevs = vdevs;
  c.eal_log_level = 3;  // errors only
  c.eal_lcore_map = lcore_map;
  if (sysconf(_SC_NPROCESSORS_ONLN) < 2 && lcores.size() > 1) {
    std::vector<std::string> map;
    for (unsigned l : lcores) map.push_back(absl::StrCat(l, "@0"));
    c.eal_lcore_map = absl::StrJoin(map, ",");
  }
  return eal_init(c);
}

}  // namespace nanopu::bench
