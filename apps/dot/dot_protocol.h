// The dot-product service's messages (docs/apps.md; nanoPU OSDI'21 §3.5,
// Listing 2, §5.2.1 and Figure 6). Two request layouts, told apart by the
// type word that follows the application header:
//
//   tester   {1, n, idx[n], timestamp}          the prototype's packet tester:
//            each index word x names weight[x] and counts x of it
//   pairs    {3, n, (idx, value) x n}           Listing 2: sum of value * weight[idx]
//   CONFIG   {0, num_msgs, timestamp}           the tester's; not answered
//
//   reply    {2, result, misses, timestamp}     len 32; misses: 0 (no
//            cache-miss counter on this host); timestamp: the request's last
//            word (tester), 0 (pairs)
//   error    {4, code, 0, timestamp}            nanopu's: 1 an index >= 2000,
//            2 n disagrees with the length, 3 an unknown type
//
// Listing 2 publishes no value for its DATA_TYPE; nanopu gives the pairs
// layout type 3 so that both layouts can reach one server.
#pragma once

#include <array>
#include <cstdint>

namespace nanopu::apps {

inline constexpr uint64_t kDotConfig = 0;
inline constexpr uint64_t kDotData = 1;   // tester layout
inline constexpr uint64_t kDotReply = 2;
inline constexpr uint64_t kDotPairs = 3;  // Listing 2 layout
inline constexpr uint64_t kDotError = 4;

inline constexpr uint64_t kDotIndexOutOfRange = 1;
inline constexpr uint64_t kDotBadLength = 2;
inline constexpr uint64_t kDotUnknownType = 3;

inline constexpr uint32_t kDotWeights = 2000;  // weight[i] = i (docs/apps.md)
inline constexpr uint16_t kDotReplyBytes = 32;

// Payload words of a request of `type` with n entries; 0 if `type` is not
// a request type.
[[nodiscard]] constexpr uint64_t dot_request_words(uint64_t type, uint64_t n) {
  return type == kDotData ? 3 + n : type == kDotPairs ? 2 + 2 * n : 0;
}

// The in-memory weight vector every server holds.
[[nodiscard]] const std::array<uint64_t, kDotWeights>& dot_weights();

}  // namespace nanopu::apps
