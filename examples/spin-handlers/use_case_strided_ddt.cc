// strided_ddt (PsPIN §IV-C, "Scatter"): data copied to host memory by a
// receiver-specified layout — blocks of 256 bytes at a stride of 512 — held
// in handler memory. 1 MiB in 64 messages of 16 KiB; each lands as a host
// message of the scattered layout (the gaps zero).
#include <algorithm>

#include "use_cases.h"

namespace spin_demo {
// Its own names (a unity build may join the use cases in one unit).
namespace strided_ddt_case {

constexpr uint32_t kBlock = 256, kStride = 512, kMessages = 64, kMessageBytes = 16u << 10;
// memory: the layout, [block: u32][stride: u32]

}  // namespace strided_ddt_case

spin::ExecutionContext strided_ddt_context(uint16_t context) {
  using namespace strided_ddt_case;
  spin::ExecutionContext c;
  c.name = "strided_ddt";
  c.match.context = context;
  c.memory_bytes = 8;
  c.init = [](spin::Memory& m) {
    m.store<uint32_t>(0, kBlock);
    m.store<uint32_t>(4, kStride);
  };
  c.payload = [](spin::Handle& h, const spin::Packet& p) {
    const uint32_t block = h.memory().load<uint32_t>(0), stride = h.memory().load<uint32_t>(4);
    if (block == 0) return;
    uint32_t blocks = 0;
    for (uint32_t at = 0; at < p.payload.size(); at += block, ++blocks) {
      const uint32_t off = p.offset_bytes + at;  // in the message
      const uint32_t len = std::min<uint32_t>(block - off % block, static_cast<uint32_t>(p.payload.size()) - at);
      (void)h.host_write(off / block * stride + off % block, p.payload.subspan(at, len));
    }
    h.charge_cycles(10 * blocks + 5);  // per block: its address and a DMA command
  };
  return c;
}

Workload strided_ddt_workload(uint64_t seed) {
  using namespace strided_ddt_case;
  Workload w;
  for (uint32_t msg = 0; msg < kMessages; ++msg) {
    Bytes b(kMessageBytes);
    for (uint32_t i = 0; i < kMessageBytes; ++i) b[i] = static_cast<uint8_t>(mix(seed * 13 + (msg << 16 | i)));
    Bytes host((kMessageBytes / kBlock - 1) * kStride + kBlock);
    for (uint32_t i = 0; i < kMessageBytes; ++i) host[i / kBlock * kStride + i % kBlock] = b[i];
    w.messages.push_back(std::move(b));
    w.host.push_back(std::move(host));
  }
  return w;
}

}  // namespace spin_demo
