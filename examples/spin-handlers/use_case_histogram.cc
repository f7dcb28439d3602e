// histogram (PsPIN §IV-C): 512 messages of 512 integers in [0, 1024);
// handlers count the items per value and, once every message is in, copy the
// histogram to the host.
#include <array>

#include "use_cases.h"

namespace spin_demo {
// Its own names (a unity build may join the use cases in one unit).
namespace histogram_case {

constexpr uint32_t kMessages = 512, kItems = 512, kBins = 1024;
constexpr uint32_t kCounts = 8;  // memory: [messages so far: u64][counts: kBins x u32, big-endian]

}  // namespace histogram_case

spin::ExecutionContext histogram_context(uint16_t context) {
  using namespace histogram_case;
  spin::ExecutionContext c;
  c.name = "histogram";
  c.match.context = context;
  c.memory_bytes = kCounts + 4 * kBins;
  c.payload = [](spin::Handle& h, const spin::Packet& p) {
    spin::Memory& m = h.memory();
    for (uint32_t i = 0; i + 4 <= p.payload.size(); i += 4) {
      const uint32_t at = kCounts + 4 * (spin::load_be<uint32_t>(p.payload.data() + i) % kBins);
      m.store_be<uint32_t>(at, m.load_be<uint32_t>(at) + 1);
    }
    h.charge_cycles(3 * (p.payload.size() / 4) + 10);  // a load, an address, an atomic add per item
  };
  c.completion = [](spin::Handle& h) {
    spin::Memory& m = h.memory();
    if (m.add<uint64_t>(0, 1) < kMessages) return h.charge_cycles(4);
    (void)h.host_write_memory(0, kCounts, 4 * kBins);
    static const std::array<uint8_t, kCounts + 4 * kBins> zero{};
    m.write(0, zero);
    h.charge_cycles(10);
  };
  return c;
}

Workload histogram_workload(uint64_t seed) {
  using namespace histogram_case;
  Workload w;
  std::array<uint32_t, kBins> counts{};
  for (uint32_t msg = 0; msg < kMessages; ++msg) {
    Bytes b;
    for (uint32_t k = 0; k < kItems; ++k) {
      const auto v = static_cast<uint32_t>(mix(seed * 5 + (uint64_t{msg} << 32 | k)) % kBins);
      put_be<uint32_t>(b, v);
      ++counts[v];
    }
    w.messages.push_back(std::move(b));
  }
  Bytes host;
  for (uint32_t v : counts) put_be<uint32_t>(host, v);
  w.host.push_back(std::move(host));
  return w;
}

}  // namespace spin_demo
