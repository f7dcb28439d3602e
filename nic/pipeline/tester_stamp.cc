#include "nic/pipeline/tester_stamp.h"

#include <rte_byteorder.h>

#include <cstring>

#include "lib/wire/frame.h"

namespace nanopu {

uint32_t tester_cycle(uint64_t tsc, uint64_t tsc_hz) {
  // 128-bit product: tsc * 3.2e9 overflows 64 bits after ~2 s at 3 GHz.
  const unsigned __int128 cycles = static_cast<unsigned __int128>(tsc) * 32 / 10 * 1'000'000'000ull / tsc_hz;
  return static_cast<uint32_t>(cycles);
}

bool stamp_rx(rte_mbuf* msg, uint32_t len, uint32_t cycle) {
  rte_mbuf* seg = rte_pktmbuf_lastseg(msg);
  if (len < 4 || seg->data_len < 4) return false;
  const rte_be32_t be = rte_cpu_to_be_32(cycle);
  std::memcpy(rte_pktmbuf_mtod(seg, uint8_t*) + seg->data_len - 4, &be, 4);
  return true;
}

bool stamp_tx(rte_mbuf* msg, uint32_t len, uint32_t cycle) {
  rte_mbuf* seg = rte_pktmbuf_lastseg(msg);
  if (len < 8 || seg->data_len < wire::kFrameHeaderBytes + 8) return false;
  uint8_t* end = rte_pktmbuf_mtod(seg, uint8_t*) + seg->data_len;
  rte_be32_t be = 0;
  std::memcpy(&be, end - 4, 4);
  const uint32_t ts = rte_be_to_cpu_32(be);
  const rte_be64_t word = rte_cpu_to_be_64(uint64_t{ts} << 32 | (cycle - ts));
  std::memcpy(end - 8, &word, 8);
  return true;
}

}  // namespace nanopu
