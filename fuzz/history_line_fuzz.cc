// libFuzzer target for the history line parser (runtime/client/history.cc,
// parse_history_line, read by nanopu-lincheck from files anyone may write):
// any byte string is either refused with a reason or parses to an event
// that writes back (history_json) to a line parsing to the same event.
// Never a crash, never a read past the input, never unbounded recursion.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "nanopu/history.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // An exact-size heap copy so ASan sees any overread.
  const std::string line(reinterpret_cast<const char*>(data), size);
  const absl::StatusOr<nanopu::HistoryEvent> e = nanopu::parse_history_line(line);
  if (!e.ok()) {
    if (e.status().message().empty()) std::abort();  // a refusal says why
    return 0;
  }
  const absl::StatusOr<nanopu::HistoryEvent> back = nanopu::parse_history_line(nanopu::history_json(*e));
  if (!back.ok() || !(*back == *e)) std::abort();
  return 0;
}
