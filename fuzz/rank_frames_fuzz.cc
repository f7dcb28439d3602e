// libFuzzer target for the frames one MPI rank of a simulation sends another
// (model/network/rank_frames.h: end, arrival time, pool, length, bytes): any
// bytes are either read into frames of exactly their records' lengths and
// bytes, made from this process's pools (a chain where one buffer is too
// small), or refused with a reason. Never a crash, never a read past the
// input, never a buffer kept.
#include <rte_mbuf.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "fuzz/fuzz_eal.h"
#include "model/network/rank_frames.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static rte_mempool* pool = [] {
    nanopu::fuzz::init_eal();
    return rte_pktmbuf_pool_create("rank_frames_fuzz", 1023, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
  }();
  if (pool == nullptr) std::abort();
  const std::string in(reinterpret_cast<const char*>(data), size);
  nanopu::model::RankFrames frames;
  size_t made = 0;
  const absl::Status s = frames.read(in, [&](uint32_t, uint64_t, rte_mbuf* m) {
    if (rte_pktmbuf_pkt_len(m) > size) std::abort();  // no byte from outside the input
    uint32_t segs_len = 0;
    for (const rte_mbuf* seg = m; seg != nullptr; seg = seg->next) segs_len += seg->data_len;
    if (segs_len != rte_pktmbuf_pkt_len(m)) std::abort();
    rte_pktmbuf_free(m);
    ++made;
  });
  if (!s.ok() && s.message().empty()) std::abort();  // a refusal says why
  if (rte_mempool_avail_count(pool) != 1023) std::abort();  // every buffer back
  return 0;
}
