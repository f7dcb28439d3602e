// A test's scratch folder of logs and results: kept when the test failed (to
// read), removed when it passed, so a green suite leaves nothing in /tmp.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

namespace nanopu::testing {

inline void remove_if_passed(const std::string& dir) {
  if (dir.empty() || ::testing::Test::HasFailure()) return;
  std::error_code ignored;
  std::filesystem::remove_all(dir, ignored);
}

}  // namespace nanopu::testing
