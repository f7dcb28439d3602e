// Running nanopu's programs as separate processes, for the multi-process
// tests and nanopu-bench-idle: start one with its output in a file, wait for
// it with a limit, read a file or a number from its JSON, and read a
// process's CPU time.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace nanopu::testing {

// For a test whose hosts outnumber the CPUs by far (a Raft cluster: up to
// seven processes): they float (--pin=off), as the netns runner floats a
// crowded topology's (docs/deploy.md). Pinned, they shared CPU 1 with the
// other test ctest runs beside them while CPU 0 idled: that test, a client
// restart that takes 4 s alone, took 27 s. Tests with two or three hosts
// stay pinned: beside a CPU hog, unpinned hosts were woken behind the hog
// (an io_uring echo test took over 120 s instead of 18; docs/design.md §9).
inline constexpr char kFloat[] = "--pin=off";

inline std::string read_file(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// Starts args[0] with stdout and stderr in out_path; -1 if it cannot start.
inline pid_t spawn(const std::vector<std::string>& args, const std::string& out_path) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = -1;
  if (posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), environ) != 0) pid = -1;
  posix_spawn_file_actions_destroy(&fa);
  return pid;
}

// Waits up to `limit` for pid; returns its exit status, 128 + the signal that
// ended it, or -1 on timeout (and kills it).
inline int wait_for(pid_t pid, std::chrono::seconds limit) {
  const auto end = std::chrono::steady_clock::now() + limit;
  int status = 0;
  while (std::chrono::steady_clock::now() < end) {
    if (waitpid(pid, &status, WNOHANG) == pid)
      return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  kill(pid, SIGKILL);
  waitpid(pid, &status, 0);
  return -1;
}

// Waits until `path` holds `text` (a program's ready line); false after `limit`.
inline bool wait_for_line(const std::string& path, const std::string& text, std::chrono::seconds limit) {
  const auto end = std::chrono::steady_clock::now() + limit;
  while (read_file(path).find(text) == std::string::npos) {
    if (std::chrono::steady_clock::now() > end) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

// The number after "key": in a program's JSON output (nanopu-loadgen
// --json), searching from `from`; -1 if absent.
inline double json_number(const std::string& json, const std::string& key, size_t from = 0) {
  const size_t at = json.find("\"" + key + "\":", from);
  return at == std::string::npos ? -1 : std::strtod(json.c_str() + at + key.size() + 3, nullptr);
}

// The value of a counter in a program's printed statistics ("  name value"
// lines, --stats), -1 if absent.
inline long long log_counter(const std::string& log, const std::string& name) {
  const size_t at = log.find(name + " ");
  return at == std::string::npos ? -1
                                 : std::atoll(log.c_str() + log.find_first_not_of(' ', at + name.size()));
}

// CPU time (user + system) the process has used, in seconds; -1 if unknown.
inline double cpu_seconds(pid_t pid) {
  const std::string stat = read_file("/proc/" + std::to_string(pid) + "/stat");
  const size_t close = stat.rfind(')');  // the command name may hold spaces
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

}  // namespace nanopu::testing
