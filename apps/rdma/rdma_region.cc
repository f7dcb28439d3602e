#include "apps/rdma/rdma_region.h"

#include <atomic>

namespace nanopu::apps {

RdmaRegion::RdmaRegion(size_t bytes) : words_(bytes / 8), mem_(new uint64_t[words_ == 0 ? 1 : words_]()) {}

uint64_t RdmaRegion::load(uint64_t addr) const {
  return std::atomic_ref<uint64_t>(mem_[addr / 8]).load(std::memory_order_relaxed);
}

void RdmaRegion::store(uint64_t addr, uint64_t value) {
  std::atomic_ref<uint64_t>(mem_[addr / 8]).store(value, std::memory_order_relaxed);
}

uint64_t RdmaRegion::compare_and_swap(uint64_t addr, uint64_t expected, uint64_t desired) {
  std::atomic_ref<uint64_t>(mem_[addr / 8]).compare_exchange_strong(expected, desired);
  return expected;  // the old value, whether or not it matched
}

uint64_t RdmaRegion::fetch_and_add(uint64_t addr, uint64_t add) {
  return std::atomic_ref<uint64_t>(mem_[addr / 8]).fetch_add(add);
}

}  // namespace nanopu::apps
