// nanopu/durable_file.h. The open files are registered by the simulated
// host that opened them (lib/base/sim_actor.h), in the order it opened
// them, so a power loss cuts the same bytes whichever thread ran the host.
#include "nanopu/durable_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <map>
#include <mutex>
#include <utility>

#include "absl/strings/str_cat.h"
#include "lib/base/sim_actor.h"
#include "nanopu/seeded_draw.h"

namespace nanopu {
namespace {

std::atomic<bool> g_simulated{false};

struct Registry {
  std::mutex mu;
  uint64_t next_id = 0;
  std::map<std::pair<uint64_t, uint64_t>, DurableFile*> open;  // (actor, open order) -> file
};
Registry& registry() {
  static Registry* r = new Registry;  // leaked: a file closed in a static destructor still finds it
  return *r;
}

absl::Status error(const std::string& path, const char* what) {
  return absl::FailedPreconditionError(absl::StrCat(path, ": ", what, ": ", std::strerror(errno)));
}

}  // namespace

absl::StatusOr<std::unique_ptr<DurableFile>> DurableFile::open(const std::string& path, std::string* contents) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return error(path, "cannot open");
  std::string bytes;
  char buf[4096];
  ssize_t n = 0;
  while ((n = ::pread(fd, buf, sizeof buf, static_cast<off_t>(bytes.size()))) > 0) bytes.append(buf, static_cast<size_t>(n));
  if (n < 0) {
    const absl::Status s = error(path, "cannot read");
    ::close(fd);
    return s;
  }
  std::unique_ptr<DurableFile> f(new DurableFile(fd, path, bytes.size(), sim_actor()));
  if (contents != nullptr) *contents = std::move(bytes);
  return f;
}

DurableFile::DurableFile(int fd, std::string path, uint64_t size, uint64_t actor)
    : fd_(fd), path_(std::move(path)), size_(size), synced_(size), actor_(actor) {
  Registry& r = registry();
  std::lock_guard<std::mutex> l(r.mu);
  r.open.emplace(std::make_pair(actor_, r.next_id++), this);
}

DurableFile::~DurableFile() {
  {
    Registry& r = registry();
    std::lock_guard<std::mutex> l(r.mu);
    for (auto it = r.open.begin(); it != r.open.end(); ++it)
      if (it->second == this) {
        r.open.erase(it);
        break;
      }
  }
  ::close(fd_);
}

absl::Status DurableFile::append(const void* data, size_t n) {
  const auto* p = static_cast<const char*>(data);
  for (size_t left = n; left > 0;) {
    const ssize_t w = ::write(fd_, p, left);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      const absl::Status s = error(path_, "cannot append");
      (void)::ftruncate(fd_, static_cast<off_t>(size_));  // no torn record behind
      return s;
    }
    p += w;
    left -= static_cast<size_t>(w);
  }
  size_ += n;
  return absl::OkStatus();
}

absl::Status DurableFile::sync() {
  if (!g_simulated.load(std::memory_order_relaxed) && ::fdatasync(fd_) != 0) return error(path_, "cannot sync");
  synced_ = size_;
  return absl::OkStatus();
}

absl::Status DurableFile::truncate(uint64_t size) {
  if (size > size_) return absl::InvalidArgumentError(absl::StrCat(path_, ": cannot truncate to ", size, " of ", size_, " bytes"));
  if (::ftruncate(fd_, static_cast<off_t>(size)) != 0) return error(path_, "cannot truncate");
  size_ = size;
  if (synced_ > size_) synced_ = size_;
  return absl::OkStatus();
}

void simulate_durable_files(bool on) { g_simulated.store(on, std::memory_order_relaxed); }

void lose_unsynced_writes(uint64_t actor, uint64_t seed) {
  Registry& r = registry();
  std::lock_guard<std::mutex> l(r.mu);
  uint64_t k = 0;
  for (auto it = r.open.lower_bound({actor, 0}); it != r.open.end() && it->first.first == actor;) {
    DurableFile& f = *it->second;
    // What the disk had: the synced bytes, then any prefix of the rest.
    SeededDraw d(stream_seed(seed, k++));
    const uint64_t keep = f.synced_ + d.below(f.size_ - f.synced_ + 1);
    if (keep < f.size_ && ::ftruncate(f.fd_, static_cast<off_t>(keep)) == 0) f.size_ = keep;
    f.synced_ = f.size_;
    it = r.open.erase(it);
  }
}

}  // namespace nanopu
