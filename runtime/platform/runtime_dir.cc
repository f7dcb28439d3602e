#include "runtime/platform/runtime_dir.h"

#include <rte_eal.h>
#include <signal.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>

#include "lib/base/log.h"

namespace nanopu {
namespace {

namespace fs = std::filesystem;

// The pid in "nanopu-<pid>", or 0 for any other name (a prefix a user chose).
pid_t pid_of(const std::string& name) {
  constexpr char kPrefix[] = "nanopu-";
  if (name.rfind(kPrefix, 0) != 0 || name.size() == sizeof(kPrefix) - 1) return 0;
  for (size_t i = sizeof(kPrefix) - 1; i < name.size(); ++i)
    if (name[i] < '0' || name[i] > '9') return 0;
  return static_cast<pid_t>(std::strtol(name.c_str() + sizeof(kPrefix) - 1, nullptr, 10));
}

bool alive(pid_t pid) { return kill(pid, 0) == 0 || errno != ESRCH; }

std::string g_own_dir;

void remove_own_dir() {
  std::error_code ec;
  fs::remove_all(g_own_dir, ec);  // best effort: nothing to say at exit
}

}  // namespace

void tidy_runtime_dirs() {
  const fs::path own = rte_eal_get_runtime_dir();
  if (pid_of(own.filename().string()) != getpid()) return;  // a prefix the user chose: theirs
  g_own_dir = own.string();
  std::atexit(remove_own_dir);
  std::error_code ec;
  int removed = 0;
  for (const fs::directory_entry& e : fs::directory_iterator(own.parent_path(), ec)) {
    const pid_t pid = pid_of(e.path().filename().string());
    if (pid == 0 || pid == getpid() || alive(pid)) continue;
    std::error_code rm;
    if (fs::remove_all(e.path(), rm) > 0 && !rm) ++removed;
  }
  if (removed > 0)
    NANOPU_LOG(kInfo, "removed %d DPDK runtime directories of nanopu processes that are gone (%s/nanopu-<pid>)",
               removed, own.parent_path().c_str());
}

}  // namespace nanopu
