// The MICA key-value service's messages (docs/apps.md; nanoPU OSDI'21 §5.3):
// word for word the prototype's layout, so its clients work unchanged.
//
//   request  {service_time, sent_time, op, key[0], key[1], key_hash, value[64] (SET)}
//   GET hit  {service_time, sent_time, value[64]}            len 528
//   SET      {service_time, sent_time, kKvStored}            len 24
//   GET miss {service_time, sent_time, kKvNotFound}          len 24   (nanopu)
//   error    {service_time, sent_time, kKvBadRequest}        len 24   (nanopu)
//
// The prototype defined no reply for a miss or a malformed request; nanopu
// answers both with the SET reply's shape and a status word, so a client
// never waits for a reply that will not come.
#pragma once

#include <array>
#include <cstdint>

namespace nanopu::apps {

inline constexpr uint64_t kKvGet = 1;
inline constexpr uint64_t kKvSet = 2;
inline constexpr uint32_t kKvKeyWords = 2;     // 16-byte keys
inline constexpr uint32_t kKvValueWords = 64;  // 512-byte values
inline constexpr uint32_t kKvHeadWords = 6;    // service_time .. key_hash
inline constexpr uint16_t kKvGetBytes = kKvHeadWords * 8;                    // 48
inline constexpr uint16_t kKvSetBytes = (kKvHeadWords + kKvValueWords) * 8;  // 560
inline constexpr uint16_t kKvValueReplyBytes = (2 + kKvValueWords) * 8;      // 528
inline constexpr uint16_t kKvStatusReplyBytes = 3 * 8;                       // 24

// Status word of a 24-byte reply.
inline constexpr uint64_t kKvNotFound = 0;
inline constexpr uint64_t kKvStored = 1;
inline constexpr uint64_t kKvBadRequest = 2;

using KvKey = std::array<uint64_t, kKvKeyWords>;

// The first kKvHeadWords words of a request, as read from the message.
struct KvHead {
  uint64_t service_time = 0;
  uint64_t sent_time = 0;
  uint64_t op = 0;
  KvKey key{};
  uint64_t key_hash = 0;
};

enum class KvCheck : uint8_t {
  kOk,
  kTooShort,    // not even service_time and sent_time: nothing to answer with (dropped)
  kBadOp,       // op is neither GET nor SET (answered kKvBadRequest)
  kBadLength,   // the length does not match the op (answered kKvBadRequest)
};

// Whether a request of `len` payload bytes with this op is well formed. A
// request shorter than 16 bytes is kTooShort whatever its op.
[[nodiscard]] constexpr KvCheck check_kv_request(uint16_t len, uint64_t op) {
  if (len < 16) return KvCheck::kTooShort;
  if (op != kKvGet && op != kKvSet) return len < 24 ? KvCheck::kBadLength : KvCheck::kBadOp;
  return len == (op == kKvGet ? kKvGetBytes : kKvSetBytes) ? KvCheck::kOk : KvCheck::kBadLength;
}

// The key hash a client puts in key_hash: CityHash64 (as the prototype used)
// over the key's 16 bytes in wire order (each word big-endian). Abseil
// carries CityHash64, so no new dependency; it is in Abseil's internal
// namespace, hence this one wrapper.
[[nodiscard]] uint64_t kv_key_hash(const KvKey& key);

}  // namespace nanopu::apps
