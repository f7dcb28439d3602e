// The port table of the NIC pipeline (nanoPU §2.3): destination context →
// the thread bound to it. Written by bind()/unbind() on worker cores, read by
// the NIC core on every DATA packet, so entries are atomics: no lock.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>

#include "absl/status/status.h"
#include "lib/ring/thread_fifos.h"

namespace nanopu {

class ContextTable {
 public:
  static constexpr size_t kContexts = 1u << 16;

  ContextTable() : entries_(std::make_unique<std::atomic<ThreadFifos*>[]>(kContexts)) {}

  // Fails with AlreadyExists when another thread holds the context.
  [[nodiscard]] absl::Status bind(uint16_t context, ThreadFifos* fifos);
  void unbind(uint16_t context, ThreadFifos* fifos);

  [[nodiscard]] ThreadFifos* lookup(uint16_t context) const {
    return entries_[context].load(std::memory_order_acquire);
  }

 private:
  std::unique_ptr<std::atomic<ThreadFifos*>[]> entries_;
};

}  // namespace nanopu
