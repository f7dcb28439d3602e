#include "runtime/simulation/output_capture.h"

#include <unistd.h>

#include <utility>

namespace nanopu::sim {

std::string read_and_close(std::FILE* f) {
  std::string text;
  if (f == nullptr) return text;
  std::rewind(f);
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) text.append(buf, n);
  std::fclose(f);
  return text;
}

OutputCapture::OutputCapture(int fd) : fd_(fd), file_(std::tmpfile()) {
  std::fflush(nullptr);
  saved_ = dup(fd_);
  if (file_ != nullptr && saved_ >= 0) dup2(fileno(file_), fd_);
}

std::string OutputCapture::take() {
  if (saved_ < 0) return text_;
  std::fflush(nullptr);
  dup2(saved_, fd_);
  close(saved_);
  saved_ = -1;
  text_ = read_and_close(std::exchange(file_, nullptr));
  return text_;
}

}  // namespace nanopu::sim
