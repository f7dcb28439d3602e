// The store every kv-server thread shares. Threads on different worker
// cores run at the same time on different CPUs, so the table is guarded:
// 64 shards, a mutex each. A nanopu thread is switched out only inside a
// Thread call (docs/services.md, "Threads and shared state"), and the
// server never makes one while it holds a shard's lock: it reads the whole
// request first and writes the reply after unlocking, so a thread that
// waits for a lock never waits for a fiber parked on its own core.
#pragma once

#include <array>
#include <cstdint>
#include <mutex>
#include <span>
#include <unordered_map>
#include <vector>

namespace kv {

class Store {
 public:
  struct Value {
    std::vector<uint64_t> words;
    uint32_t bytes = 0;
  };

  // Copies the value of `key` into *out; false if there is none.
  bool get(uint64_t key, Value* out) const {
    const Shard& s = shard(key);
    std::lock_guard<std::mutex> lock(s.mu);
    auto it = s.map.find(key);
    if (it == s.map.end()) return false;
    *out = it->second;
    return true;
  }
  void put(uint64_t key, std::span<const uint64_t> words, uint32_t bytes) {
    Value v{std::vector<uint64_t>(words.begin(), words.end()), bytes};
    Shard& s = shard(key);
    std::lock_guard<std::mutex> lock(s.mu);
    s.map.insert_or_assign(key, std::move(v));
  }
  // False if there was nothing to delete.
  bool erase(uint64_t key) {
    Shard& s = shard(key);
    std::lock_guard<std::mutex> lock(s.mu);
    return s.map.erase(key) != 0;
  }

 private:
  struct Shard {
    mutable std::mutex mu;
    std::unordered_map<uint64_t, Value> map;
  };
  static constexpr size_t kShards = 64;
  [[nodiscard]] Shard& shard(uint64_t key) { return shards_[(key * 0x9e3779b97f4a7c15ull) >> 58]; }
  [[nodiscard]] const Shard& shard(uint64_t key) const { return shards_[(key * 0x9e3779b97f4a7c15ull) >> 58]; }

  std::array<Shard, kShards> shards_;
};

}  // namespace kv
