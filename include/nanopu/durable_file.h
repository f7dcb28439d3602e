// A file a service keeps its state in, with the promise a disk makes: what
// was synced survives the host's crash; what was appended since may not —
// all of it, some of it, or its first bytes only (a torn write). A killed
// process loses nothing (the kernel holds its writes); a machine that loses
// power loses what it did not sync. FoundationDB's simulated disk
// ("Testing Distributed Systems w/ Deterministic Simulation") makes the
// same distinction, and finds the services that answered before syncing.
//
//   auto f = nanopu::DurableFile::open(args.state_dir + "/log", &bytes);
//   (*f)->append(record, n);
//   (*f)->sync();                 // only now may a reply depend on it
//
// Live: write(2) and fdatasync(2). In a simulation (nanopu/sim.h) the bytes
// go to the file at once (a restarted host reads them back), sync() costs
// nothing, and a crash with power lost (sim::Crash::power_loss, `dst`'s
// --fault_power_loss) cuts each of the host's files back to what it synced
// plus a prefix of the rest drawn from the seed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace nanopu {

class DurableFile {
 public:
  // Opens (creates) `path` for appending; its bytes so far in *contents if
  // given. Errors name the path.
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<DurableFile>> open(const std::string& path,
                                                                        std::string* contents = nullptr);
  ~DurableFile();
  DurableFile(const DurableFile&) = delete;
  DurableFile& operator=(const DurableFile&) = delete;

  // Appends n bytes (all or an error: a short write is cut back off).
  [[nodiscard]] absl::Status append(const void* data, size_t n);
  // Every byte appended so far survives a crash from now on.
  [[nodiscard]] absl::Status sync();
  // Keeps the first `size` bytes (a torn tail found at open, dropped). A
  // power loss does not bring cut bytes back: it counts as synced.
  [[nodiscard]] absl::Status truncate(uint64_t size);

  [[nodiscard]] uint64_t size() const { return size_; }
  [[nodiscard]] uint64_t synced_size() const { return synced_; }
  [[nodiscard]] const std::string& path() const { return path_; }

 private:
  DurableFile(int fd, std::string path, uint64_t size, uint64_t actor);
  friend void lose_unsynced_writes(uint64_t actor, uint64_t seed);

  int fd_;
  std::string path_;
  uint64_t size_ = 0, synced_ = 0;
  uint64_t actor_;  // the simulated host that opened it (lib/base/sim_actor.h)
};

// For a harness (a simulated run): whether sync() reaches a disk (live) or
// only marks the bytes kept (simulated); off by default.
void simulate_durable_files(bool on);
// For a harness: the simulated host `actor` lost power. Each file it has
// open is cut back to its synced bytes plus a prefix of the rest drawn from
// `seed`; its open files are forgotten (their process is gone).
void lose_unsynced_writes(uint64_t actor, uint64_t seed);

}  // namespace nanopu
