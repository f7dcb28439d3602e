// Shared by the churn tests (tests/e2e/churn_test.cc over io_uring and
// memif, tests/e2e/process_restart_test.cc over af_packet): how many
// restarts, and a SIGKILL that first checks its process was still alive.
#pragma once

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <cstdlib>
#include <string>

#include "tests/support/sanitizers.h"

namespace nanopu::testing {

// 24 in the test command, eight of each of a switched run's three roles (9
// under AddressSanitizer, whose programs start several times slower: the
// same kill and restart paths). A soak is a campaign, not a test:
// deploy/churn.sh sets NANOPU_CHURN_RESTARTS for hundreds.
inline int churn_restarts() {
  const char* n = std::getenv("NANOPU_CHURN_RESTARTS");
  if (n != nullptr && std::atoi(n) > 0) return std::atoi(n);
  return kUnderAddressSanitizer ? 9 : 24;
}

// SIGKILL to *p, which must have been alive until then (not died on its
// own); *p = -1 after.
inline void kill9_alive(pid_t* p, const std::string& what, int run) {
  int status = 0;
  ASSERT_EQ(waitpid(*p, &status, WNOHANG), 0) << what << " " << run << " died on its own";
  kill(*p, SIGKILL);
  ASSERT_EQ(waitpid(*p, &status, 0), *p);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << what << " " << run;
  *p = -1;
}

}  // namespace nanopu::testing
