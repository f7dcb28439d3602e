// PsPIN's six use cases ("PsPIN: A high-performance low-power architecture
// for flexible in-network compute", §IV-C) as sPIN execution contexts on
// nanopu's NIC (nanopu/spin.h), each with the workload a client sends and the
// reference a host computes for it. Written against the installed public API
// only. Sizes are the paper's; nanopu's packets carry 1024 bytes and a
// message at most 65535, so a "1 MiB message" is a stream of messages the
// handlers count to its end.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "nanopu/spin.h"

namespace spin_demo {

namespace spin = nanopu::spin;
using Bytes = std::vector<uint8_t>;

enum class UseCase : uint8_t { kReduce, kAggregate, kFiltering, kKvstore, kStridedDdt, kHistogram };
inline constexpr UseCase kUseCases[] = {UseCase::kReduce,   UseCase::kAggregate,  UseCase::kFiltering,
                                        UseCase::kKvstore,  UseCase::kStridedDdt, UseCase::kHistogram};
inline constexpr uint16_t kFirstContext = 40;  // use case i is served on context 40 + i

[[nodiscard]] const char* name_of(UseCase u);
[[nodiscard]] inline uint16_t context_of(UseCase u) { return static_cast<uint16_t>(kFirstContext + static_cast<int>(u)); }

// What a client sends for a use case and what the host must receive.
struct Workload {
  std::vector<Bytes> messages;     // in order
  std::vector<Bytes> host;         // the host messages the handlers must produce (any order)
  std::vector<uint64_t> replies;   // kvstore: the value each request's reply must carry
};

// The context on `context`, its tables from `seed`.
[[nodiscard]] spin::ExecutionContext make_context(UseCase u, uint16_t context, uint64_t seed);
[[nodiscard]] Workload make_workload(UseCase u, uint64_t seed);

// One per use case (use_case_*.cc).
[[nodiscard]] spin::ExecutionContext reduce_context(uint16_t context);
[[nodiscard]] Workload reduce_workload(uint64_t seed);
[[nodiscard]] spin::ExecutionContext aggregate_context(uint16_t context);
[[nodiscard]] Workload aggregate_workload(uint64_t seed);
[[nodiscard]] spin::ExecutionContext histogram_context(uint16_t context);
[[nodiscard]] Workload histogram_workload(uint64_t seed);
[[nodiscard]] spin::ExecutionContext filtering_context(uint16_t context, uint64_t seed);
[[nodiscard]] Workload filtering_workload(uint64_t seed);
[[nodiscard]] spin::ExecutionContext kvstore_context(uint16_t context);
[[nodiscard]] Workload kvstore_workload(uint64_t seed);
[[nodiscard]] spin::ExecutionContext strided_ddt_context(uint16_t context);
[[nodiscard]] Workload strided_ddt_workload(uint64_t seed);

// kvstore's messages (24 bytes, three big-endian words): a request
// [op << 56 | id][key][value], a reply [from << 56 | id][key][value].
enum class KvOp : uint8_t { kGet = 1, kPut = 2 };
enum class KvFrom : uint8_t { kNic = 1, kHost = 2 };
inline constexpr uint64_t kIdMask = (uint64_t{1} << 56) - 1;

// FNV-1a over bytes: how a host result travels back to the client for checking.
[[nodiscard]] inline uint64_t fnv1a(std::span<const uint8_t> b) {
  uint64_t h = 1469598103934665603ull;
  for (uint8_t c : b) h = (h ^ c) * 1099511628211ull;
  return h;
}
// splitmix64: the workloads' and tables' numbers, the same on every host.
[[nodiscard]] inline uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}
// Appends v big-endian (a thread reads such words as they were written).
template <typename T>
void put_be(Bytes& b, T v) {
  const size_t at = b.size();
  b.resize(at + sizeof(T));
  spin::store_be<T>(b.data() + at, v);
}

}  // namespace spin_demo
