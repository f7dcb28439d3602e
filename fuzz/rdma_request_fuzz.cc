// libFuzzer target for the one-sided RDMA service (apps/rdma): sequences of
// requests of any op, address, count and length into a small region,
// checked against a reference memory image. Invariants: no access outside
// the region (ASan); an op answered kOk acted exactly as on the reference
// (reads, scans and maxes return its words, writes, CAS and FAA change it
// the same way);
// any other status changed nothing; a reply never carries more words than
// its op calls for.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "apps/rdma/rdma_service.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace nanopu::apps;
  constexpr size_t kRegionBytes = 256;  // 32 words
  RdmaRegion region(kRegionBytes);
  std::vector<uint64_t> ref(kRegionBytes / 8, 0);
  RdmaServiceStats stats;
  RdmaReply reply;
  auto ref_valid = [&](uint64_t addr, uint64_t n) {
    return addr % 8 == 0 && n <= ref.size() && addr / 8 + n <= ref.size();
  };
  // Each record: op, addr byte, count byte, length delta byte, 2 argument bytes.
  for (size_t i = 0; i + 6 <= size; i += 6) {
    const uint8_t* r = data + i;
    const uint64_t op = r[0] % 9;  // 0 and 8: unknown ops
    const uint64_t addr = r[1] & 0x80 ? uint64_t{r[1]} << 56 : r[1];  // some far out of range
    const uint64_t count = r[2] % 6;  // nwords 0..5, or CAS expected / FAA add
    const uint64_t a1 = r[4], a2 = r[5];
    std::vector<uint64_t> w = {1, 2, op, addr, count};
    if (op == static_cast<uint64_t>(RdmaOp::kWrite))
      for (uint64_t k = 0; k < count; ++k) w.push_back(a1 * 31 + k);
    if (op == static_cast<uint64_t>(RdmaOp::kCas)) w.push_back(a2);
    if (op == static_cast<uint64_t>(RdmaOp::kScanRead)) {  // {nkeys = count, key = a1, nwords}
      w.push_back(a1);
      w.push_back(a2 % 6);
    }
    const int delta = static_cast<int8_t>(r[3]) % 3 == 0 ? 0 : static_cast<int8_t>(r[3]) % 24;
    const auto len = static_cast<uint16_t>(std::max<int>(0, 8 * static_cast<int>(w.size()) + delta));
    // Words beyond those present read as zero (a short FIFO).
    const uint32_t n = static_cast<uint32_t>(std::min<size_t>(w.size(), len / 8 + 1));
    const std::vector<uint64_t> before = ref;
    if (!execute_rdma(w.data(), n, len, &region, &stats, &reply)) {
      if (len >= 16 && n >= 2) std::abort();
      continue;
    }
    if (reply.nwords > kRdmaMaxWords) std::abort();
    const bool well_formed = len == 8 * w.size() && n == w.size();
    if (reply.status == RdmaStatus::kOk) {
      if (!well_formed) std::abort();
      switch (static_cast<RdmaOp>(op)) {
        case RdmaOp::kRead:
          if (!ref_valid(addr, count) || reply.nwords != count) std::abort();
          for (uint64_t k = 0; k < count; ++k)
            if (reply.words[k] != ref[addr / 8 + k]) std::abort();
          break;
        case RdmaOp::kWrite:
          if (!ref_valid(addr, count) || reply.nwords != 0) std::abort();
          for (uint64_t k = 0; k < count; ++k) ref[addr / 8 + k] = a1 * 31 + k;
          break;
        case RdmaOp::kCas:
          if (!ref_valid(addr, 1) || reply.nwords != 1 || reply.words[0] != ref[addr / 8]) std::abort();
          if (ref[addr / 8] == count) ref[addr / 8] = a2;
          break;
        case RdmaOp::kFaa:
          if (!ref_valid(addr, 1) || reply.nwords != 1 || reply.words[0] != ref[addr / 8]) std::abort();
          ref[addr / 8] += count;
          break;
        case RdmaOp::kIndirectRead: {
          if (!ref_valid(addr, 1)) std::abort();
          const uint64_t ptr = ref[addr / 8];
          if (!ref_valid(ptr, count) || reply.nwords != count) std::abort();
          for (uint64_t k = 0; k < count; ++k)
            if (reply.words[k] != ref[ptr / 8 + k]) std::abort();
          break;
        }
        case RdmaOp::kScanRead: {
          if (!ref_valid(addr, 2 * count)) std::abort();
          uint64_t k = 0;
          while (k < count && ref[addr / 8 + 2 * k] != a1) ++k;
          if (k == count) std::abort();  // no key matched: kNotFound, not kOk
          const uint64_t ptr = ref[addr / 8 + 2 * k + 1], nw = a2 % 6;
          if (!ref_valid(ptr, nw) || reply.nwords != nw) std::abort();
          for (uint64_t j = 0; j < nw; ++j)
            if (reply.words[j] != ref[ptr / 8 + j]) std::abort();
          break;
        }
        case RdmaOp::kMax: {
          if (!ref_valid(addr, count) || reply.nwords != 1) std::abort();
          uint64_t most = 0;
          for (uint64_t k = 0; k < count; ++k) most = std::max(most, ref[addr / 8 + k]);
          if (reply.words[0] != most) std::abort();
          break;
        }
        default:
          std::abort();  // an unknown op answered kOk
      }
    } else if (reply.nwords != 0) {
      std::abort();
    }
    for (size_t k = 0; k < ref.size(); ++k)
      if (region.load(8 * k) != ref[k]) std::abort();  // the region matches the reference
    if (reply.status != RdmaStatus::kOk && ref != before) std::abort();
  }
  return 0;
}
