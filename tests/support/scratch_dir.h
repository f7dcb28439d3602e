// A test's scratch folder of logs and results: kept when the test failed (to
// read), removed when it passed, so a green suite leaves nothing in /tmp.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace nanopu::testing {

inline void remove_if_passed(const std::string& dir) {
  if (dir.empty() || ::testing::Test::HasFailure()) return;
  std::error_code ignored;
  std::filesystem::remove_all(dir, ignored);
}

// Writes `text` to a file in a scratch folder (a script a test runs, an
// entries file); false if it could not.
[[nodiscard]] inline bool write_file(const std::string& path, const std::string& text) {
  std::ofstream f(path);
  f << text;
  return static_cast<bool>(f.flush());
}

}  // namespace nanopu::testing
