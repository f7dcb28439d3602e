// Copies of 8-byte words between the host's order and the wire's big-endian
// order (docs/wire.md: a message is a run of big-endian words). A bulk
// read or write of a message moves every word through one of these: the
// scalar loop GCC 12 leaves unvectorised at -O2 took 2 ns a word, half of a
// 64 KB echo's time on its core (nanopu-bench-e2e scaling, issue 69 item
// 5); two words a shuffle with SSSE3 where the build has it. The swap is
// its own inverse: the same copy serves both directions.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>

#if defined(__SSSE3__)
#include <tmmintrin.h>
#endif

namespace nanopu {

// n words from src to dst (unaligned either, not overlapping), each
// byte-swapped when the host is little-endian.
inline void copy_swapping_words(void* dst, const void* src, uint32_t n) {
  auto* out = static_cast<uint8_t*>(dst);
  const auto* in = static_cast<const uint8_t*>(src);
  if constexpr (std::endian::native == std::endian::big) {
    std::memcpy(out, in, 8 * size_t{n});
    return;
  }
  uint32_t i = 0;
#if defined(__SSSE3__)
  const __m128i swap = _mm_set_epi8(8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7);
  for (; i + 4 <= n; i += 4) {
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + 8 * i));
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + 8 * i + 16));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 8 * i), _mm_shuffle_epi8(a, swap));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 8 * i + 16), _mm_shuffle_epi8(b, swap));
  }
#endif
  for (; i < n; ++i) {
    uint64_t w;
    std::memcpy(&w, in + 8 * i, 8);
    w = __builtin_bswap64(w);
    std::memcpy(out + 8 * i, &w, 8);
  }
}

}  // namespace nanopu
