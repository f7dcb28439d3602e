#include "lib/base/log.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace nanopu {
namespace {

LogLevel level_from_env() {
  const char* v = std::getenv("NANOPU_LOG_LEVEL");
  if (v == nullptr) return LogLevel::kInfo;
  if (std::strcmp(v, "error") == 0) return LogLevel::kError;
  if (std::strcmp(v, "warning") == 0) return LogLevel::kWarning;
  if (std::strcmp(v, "debug") == 0) return LogLevel::kDebug;
  return LogLevel::kInfo;
}

std::atomic<uint8_t>& level_word() {
  static std::atomic<uint8_t> level{static_cast<uint8_t>(level_from_env())};
  return level;
}

uint64_t steady_ns() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

}  // namespace

void set_log_level(LogLevel level) { level_word().store(static_cast<uint8_t>(level), std::memory_order_relaxed); }

LogLevel log_level() { return static_cast<LogLevel>(level_word().load(std::memory_order_relaxed)); }

void log_line(LogLevel level, uint64_t suppressed, const char* fmt, ...) {
  (void)level;
  char line[1024];
  int n = std::snprintf(line, sizeof line, "nanopu: ");
  va_list args;
  va_start(args, fmt);
  const int body = std::vsnprintf(line + n, sizeof line - static_cast<size_t>(n), fmt, args);
  va_end(args);
  n = std::min<int>(n + std::max(body, 0), static_cast<int>(sizeof line) - 2);
  if (suppressed != 0)
    n += std::snprintf(line + n, sizeof line - static_cast<size_t>(n) - 1, " (and %llu more like it)",
                       static_cast<unsigned long long>(suppressed));
  n = std::min<int>(n, static_cast<int>(sizeof line) - 2);
  line[n++] = '\n';
  // One write: lines of two threads never interleave.
  ssize_t w = ::write(STDERR_FILENO, line, static_cast<size_t>(n));
  (void)w;
}

bool LogEpisode::admit(uint64_t* suppressed) {
  const uint64_t now = steady_ns();
  uint64_t next = next_ns_.load(std::memory_order_relaxed);
  if (now < next || !next_ns_.compare_exchange_strong(next, now + period_ns_, std::memory_order_relaxed)) {
    suppressed_.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  *suppressed = suppressed_.exchange(0, std::memory_order_relaxed);
  return true;
}

}  // namespace nanopu
