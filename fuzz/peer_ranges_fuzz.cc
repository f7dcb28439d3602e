// libFuzzer target for the workload program's --peers (tools/simulator/peer_ranges.h,
// a topology's host line): any text is refused with a reason or gives
// addresses, none of them the host's own, at most 256 an item. Never a
// crash, never a loop that does not end (a range to .255 once wrapped).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "tools/simulator/peer_ranges.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 4) return 0;
  uint32_t self = 0;
  for (int i = 0; i < 4; ++i) self = self << 8 | data[i];
  const std::string text(reinterpret_cast<const char*>(data + 4), size - 4);
  std::vector<uint32_t> peers;
  const std::string bad = nanopu::sim::parse_peer_ranges(text, self, &peers);
  if (bad.empty() == peers.empty()) std::abort();  // addresses, or a reason: never both, never neither
  size_t items = 1;
  for (const char c : text) items += c == ',' ? 1 : 0;
  if (peers.size() > 256 * items) std::abort();
  for (const uint32_t ip : peers)
    if (ip == self) std::abort();
  return 0;
}
