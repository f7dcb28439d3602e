// aggregate (PsPIN §IV-C, "Data aggregation"): 1 MiB of 32-bit integers
// summed; the completion handler copies the aggregate to the host. A nanopu
// message holds at most 65535 bytes: the MiB comes as 32 messages of 32 KiB,
// the last one's completion writing the sum.
#include <array>

#include "use_cases.h"

namespace spin_demo {
// Its own names (a unity build may join the use cases in one unit).
namespace aggregate_case {

constexpr uint32_t kTotalBytes = 1u << 20, kMessageBytes = 32u << 10;
// memory: [bytes so far: u64][sum: u64]

}  // namespace aggregate_case

spin::ExecutionContext aggregate_context(uint16_t context) {
  using namespace aggregate_case;
  spin::ExecutionContext c;
  c.name = "aggregate";
  c.match.context = context;
  c.memory_bytes = 16;
  c.payload = [](spin::Handle& h, const spin::Packet& p) {
    uint64_t sum = 0;
    for (uint32_t i = 0; i + 4 <= p.payload.size(); i += 4) sum += spin::load_be<uint32_t>(p.payload.data() + i);
    h.memory().add<uint64_t>(8, sum);
    h.charge_cycles(2 * (p.payload.size() / 4) + 10);  // a load and an add per integer
  };
  c.completion = [](spin::Handle& h) {
    spin::Memory& m = h.memory();
    if (m.add<uint64_t>(0, h.message().size_bytes) < kTotalBytes) return h.charge_cycles(4);
    (void)h.host_write_word(0, m.load<uint64_t>(8));
    m.store<uint64_t>(0, 0);
    m.store<uint64_t>(8, 0);
    h.charge_cycles(10);
  };
  return c;
}

Workload aggregate_workload(uint64_t seed) {
  using namespace aggregate_case;
  Workload w;
  uint64_t sum = 0;
  for (uint32_t msg = 0; msg < kTotalBytes / kMessageBytes; ++msg) {
    Bytes b;
    for (uint32_t k = 0; k < kMessageBytes / 4; ++k) {
      const auto v = static_cast<uint32_t>(mix(seed * 3 + (uint64_t{msg} << 32 | k)));
      put_be<uint32_t>(b, v);
      sum += v;
    }
    w.messages.push_back(std::move(b));
  }
  Bytes host;
  put_be<uint64_t>(host, sum);
  w.host.push_back(std::move(host));
  return w;
}

}  // namespace spin_demo
