// The registered memory a one-sided RDMA service exposes: bounds-checked
// word access by byte offset. CAS and FAA are atomic (std::atomic_ref) and
// plain reads and writes are word-atomic, so threads on several cores may
// serve one region.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

namespace nanopu::apps {

class RdmaRegion {
 public:
  explicit RdmaRegion(size_t bytes);  // rounded down to whole words, zeroed

  [[nodiscard]] size_t bytes() const { return words_ * 8; }
  // Whether [addr, addr + 8·nwords) is inside the region and addr aligned.
  [[nodiscard]] bool valid(uint64_t addr, uint64_t nwords) const {
    return addr % 8 == 0 && nwords <= words_ && addr / 8 <= words_ - nwords;
  }
  // Unchecked: valid(addr, 1) first.
  [[nodiscard]] uint64_t load(uint64_t addr) const;
  void store(uint64_t addr, uint64_t value);
  // Returns the old value; stores desired only if it was expected.
  uint64_t compare_and_swap(uint64_t addr, uint64_t expected, uint64_t desired);
  uint64_t fetch_and_add(uint64_t addr, uint64_t add);

 private:
  size_t words_;
  std::unique_ptr<uint64_t[]> mem_;
};

}  // namespace nanopu::apps
