// reduce (PsPIN §IV-C, "Data reduction"): 512 packets, each of 32-bit
// integers, summed element by element into handler memory; once the last
// packet is in, the completion handler writes the vector to the host.
// nanopu's packets carry 1024 bytes (256 integers; the paper's 512): 512 of
// them, in 16 messages of 32.
#include <array>

#include "use_cases.h"

namespace spin_demo {
// Its own names (a unity build may join the use cases in one unit).
namespace reduce_case {

constexpr uint32_t kPackets = 512, kPacketsPerMessage = 32, kElems = 256;
constexpr uint32_t kAcc = 8;  // memory: [packets so far: u64][acc: kElems x u32, big-endian]

}  // namespace reduce_case

spin::ExecutionContext reduce_context(uint16_t context) {
  using namespace reduce_case;
  spin::ExecutionContext c;
  c.name = "reduce";
  c.match.context = context;
  c.memory_bytes = kAcc + 4 * kElems;
  c.payload = [](spin::Handle& h, const spin::Packet& p) {
    spin::Memory& m = h.memory();
    const uint32_t first = p.offset_bytes / 4;
    for (uint32_t i = 0; i + 4 <= p.payload.size(); i += 4) {
      const uint32_t at = kAcc + 4 * ((first + i / 4) % kElems);
      m.store_be<uint32_t>(at, m.load_be<uint32_t>(at) + spin::load_be<uint32_t>(p.payload.data() + i));
    }
    // Declared for the PsPIN model: per integer a load and an atomic add
    // into L1 (RISC-V AMO, single cycle) and the loop's increment.
    h.charge_cycles(3 * (p.payload.size() / 4) + 10);
  };
  c.completion = [](spin::Handle& h) {
    spin::Memory& m = h.memory();
    if (m.add<uint64_t>(0, h.message().packets) < kPackets) return h.charge_cycles(4);
    (void)h.host_write_memory(0, kAcc, 4 * kElems);  // "informs the host that the result is available"
    static const std::array<uint8_t, kAcc + 4 * kElems> zero{};
    m.write(0, zero);  // ready for the next reduction
    h.charge_cycles(10);
  };
  return c;
}

Workload reduce_workload(uint64_t seed) {
  using namespace reduce_case;
  Workload w;
  std::array<uint32_t, kElems> sum{};
  for (uint32_t msg = 0; msg < kPackets / kPacketsPerMessage; ++msg) {
    Bytes b;
    for (uint32_t k = 0; k < kPacketsPerMessage * kElems; ++k) {
      const auto v = static_cast<uint32_t>(mix(seed ^ (uint64_t{msg} << 32 | k)));
      put_be<uint32_t>(b, v);
      sum[k % kElems] += v;
    }
    w.messages.push_back(std::move(b));
  }
  Bytes host;
  for (uint32_t v : sum) put_be<uint32_t>(host, v);
  w.host.push_back(std::move(host));
  return w;
}

}  // namespace spin_demo
