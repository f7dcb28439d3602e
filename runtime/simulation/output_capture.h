// What a run writes on a file descriptor (its hosts' stderr lines), captured
// into a string: a campaign of a thousand runs shows a run's log only when
// it fails.
#pragma once

#include <cstdio>
#include <string>

namespace nanopu::sim {

// Everything written to a temporary file, which is then closed ("" for none).
[[nodiscard]] std::string read_and_close(std::FILE* f);

class OutputCapture {
 public:
  explicit OutputCapture(int fd);
  ~OutputCapture() { (void)take(); }
  OutputCapture(const OutputCapture&) = delete;
  OutputCapture& operator=(const OutputCapture&) = delete;
  [[nodiscard]] bool capturing() const { return file_ != nullptr && saved_ >= 0; }
  // Stops capturing; what was written meanwhile.
  std::string take();

 private:
  int fd_, saved_ = -1;
  std::FILE* file_;
  std::string text_;
};

}  // namespace nanopu::sim
