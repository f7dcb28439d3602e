// libFuzzer target for the dot-product service's request path
// (apps/dot/dot_service.h, the naive path the optimal one mirrors): any
// words, any type, any claimed n. Invariants: no read past the words
// present (they sit exactly on the heap, for ASan); a CONFIG or an empty
// message gets no reply, everything else exactly one 4-word reply of type
// 2 or 4; a result reply only when the type, n and length agree and every
// index is below 2000, carrying the sum a plain loop computes; an error's
// code names what was wrong.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "apps/dot/dot_protocol.h"
#include "apps/dot/dot_service.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace nanopu::apps;
  const auto n = static_cast<uint32_t>(size / 8);
  auto words = std::make_unique<uint64_t[]>(n == 0 ? 1 : n);
  if (n != 0) std::memcpy(words.get(), data, size_t{n} * 8);
  // Small types and counts most of the time, so that well-formed requests occur.
  if (n >= 1) words[0] %= (words[0] & 0x100) ? 256 : 5;
  if (n >= 2 && (words[1] & 0x100) == 0) words[1] %= 8;
  for (uint32_t i = 2; i < n; ++i)
    if ((words[i] & 0x10000) == 0) words[i] %= 2048;
  DotStats stats;
  const DotReply r = dot_reply(words.get(), n, &stats);
  const uint64_t* w = words.get();
  if (n == 0 || w[0] == kDotConfig) {
    if (r.answer) std::abort();
    return 0;
  }
  if (!r.answer || (r.words[0] != kDotReply && r.words[0] != kDotError)) std::abort();
  const bool known = w[0] == kDotData || w[0] == kDotPairs;
  const bool shaped = known && n >= 2 && w[1] >= 1 && w[1] <= n && dot_request_words(w[0], w[1]) == n;
  if (!known && !(r.words[0] == kDotError && r.words[1] == kDotUnknownType)) std::abort();
  if (known && !shaped && !(r.words[0] == kDotError && r.words[1] == kDotBadLength)) std::abort();
  if (!shaped) return 0;
  const bool pairs = w[0] == kDotPairs;
  uint64_t sum = 0;
  bool in_range = true;
  for (uint64_t i = 0; i < w[1]; ++i) {
    const uint64_t idx = pairs ? w[2 + 2 * i] : w[2 + i];
    if (idx >= kDotWeights) in_range = false;
    else sum += (pairs ? w[3 + 2 * i] : idx) * idx;  // weight[i] = i
  }
  const uint64_t ts = pairs ? 0 : w[n - 1];
  if (r.words[3] != ts || r.words[2] != 0) std::abort();
  if (!in_range && !(r.words[0] == kDotError && r.words[1] == kDotIndexOutOfRange)) std::abort();
  if (in_range && !(r.words[0] == kDotReply && r.words[1] == sum)) std::abort();
  return 0;
}
