// nanopu's one log: every message the library prints goes through here.
// A line is "nanopu: <message>" on stderr, written with one write() so lines
// of two threads never interleave. Levels filter it (NANOPU_LOG_LEVEL=error,
// warning, info or debug in the environment; default info), and a call site
// that can fire in bursts logs once per episode (NANOPU_LOG_EVERY): the first
// event of a period is written, the rest counted and named on the next line
// written there ("... (and 41 more like it)").
// Hand-written rather than absl's logging: Debian 12's Abseil (20220623)
// ships no absl::log, and glog would be a dependency for two macros.
#pragma once

#include <atomic>
#include <cstdint>

namespace nanopu {

enum class LogLevel : uint8_t { kError = 0, kWarning = 1, kInfo = 2, kDebug = 3 };

void set_log_level(LogLevel level);
[[nodiscard]] LogLevel log_level();
[[nodiscard]] inline bool log_enabled(LogLevel level) { return level <= log_level(); }

// One line (no trailing newline in fmt); `suppressed` > 0 appends how many
// like it were left out since the last one.
void log_line(LogLevel level, uint64_t suppressed, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));

// One call site's episodes: at most one line per period; thread-safe.
class LogEpisode {
 public:
  explicit LogEpisode(double period_s) : period_ns_(static_cast<uint64_t>(period_s * 1e9)) {}
  // True when this event is to be written; *suppressed is then the number
  // of events since the last one written.
  [[nodiscard]] bool admit(uint64_t* suppressed);

 private:
  uint64_t period_ns_;
  std::atomic<uint64_t> next_ns_{0};
  std::atomic<uint64_t> suppressed_{0};
};

}  // namespace nanopu

#define NANOPU_LOG(level, ...)                                                   \
  do {                                                                           \
    if (::nanopu::log_enabled(::nanopu::LogLevel::level))                        \
      ::nanopu::log_line(::nanopu::LogLevel::level, 0, __VA_ARGS__);             \
  } while (0)

// At most one line per `period_s` seconds from this call site.
#define NANOPU_LOG_EVERY(level, period_s, ...)                                   \
  do {                                                                           \
    static ::nanopu::LogEpisode nanopu_log_episode_(period_s);                   \
    uint64_t nanopu_log_suppressed_ = 0;                                         \
    if (::nanopu::log_enabled(::nanopu::LogLevel::level) &&                      \
        nanopu_log_episode_.admit(&nanopu_log_suppressed_))                      \
      ::nanopu::log_line(::nanopu::LogLevel::level, nanopu_log_suppressed_, __VA_ARGS__); \
  } while (0)
