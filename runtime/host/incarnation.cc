#include "runtime/host/incarnation.h"

#include <atomic>
#include <chrono>

#include "lib/contract/clock.h"

namespace nanopu {

uint16_t incarnation_after(uint64_t wall_ms, uint16_t previous) {
  const auto from_clock = static_cast<uint16_t>(wall_ms % 0xffff + 1);  // 1..65535
  if (previous == 0) return from_clock;
  // Two runtimes started within one millisecond in one process still differ.
  const auto next = static_cast<uint16_t>(previous == 0xffff ? 1 : previous + 1);
  const auto ahead = static_cast<uint16_t>(from_clock - previous);  // mod 2^16
  return ahead != 0 && ahead < 0x8000 ? from_clock : next;
}

uint16_t next_incarnation() {
  if (clock::is_virtual()) return clock::next_virtual_run();  // a simulation replays exactly
  static std::atomic<uint16_t> last{0};
  const auto wall_ms = static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                                 std::chrono::system_clock::now().time_since_epoch())
                                                 .count());
  uint16_t prev = last.load();
  uint16_t next;
  do {
    next = incarnation_after(wall_ms, prev);
  } while (!last.compare_exchange_weak(prev, next));
  return next;
}

}  // namespace nanopu
