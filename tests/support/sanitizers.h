// Whether this test binary runs under AddressSanitizer, whose programs run
// several times slower: long tests then exercise the same paths with less
// traffic (fewer messages, fewer sizes, fewer restarts).
#pragma once

namespace nanopu::testing {

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NANOPU_TEST_UNDER_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) && !defined(NANOPU_TEST_UNDER_ASAN)
#define NANOPU_TEST_UNDER_ASAN 1
#endif

#ifdef NANOPU_TEST_UNDER_ASAN
inline constexpr bool kUnderAddressSanitizer = true;
#else
inline constexpr bool kUnderAddressSanitizer = false;
#endif

}  // namespace nanopu::testing
