#include "runtime/platform/crash_report.h"

#include <gtest/gtest.h>
#include <signal.h>

namespace nanopu {
namespace {

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define NANOPU_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define NANOPU_SANITIZED 1
#endif

void crash() {
  volatile int* volatile p = nullptr;
  *p = 1;
}

TEST(CrashReportTest, ASegfaultNamesTheObjectThatFaultedAndStillDiesOfIt) {
#ifdef NANOPU_SANITIZED
  GTEST_SKIP() << "the sanitizer's own report is used instead";
#else
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        install_crash_report();
        install_crash_report();  // idempotent
        crash();
      },
      ::testing::KilledBySignal(SIGSEGV), "nanopu: SIGSEGV in .*unit_tests \\(pc 0x[0-9a-f]+\\)");
#endif
}

}  // namespace
}  // namespace nanopu
