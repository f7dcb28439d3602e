#include "apps/rdma/rdma_service.h"

#include <algorithm>
#include <cstdio>
#include <string>

#include "apps/boot/bind_service.h"

namespace nanopu::apps {
namespace {

RdmaStatus bad(RdmaServiceStats* stats) {
  ++stats->bad_requests;
  return RdmaStatus::kBadRequest;
}
RdmaStatus out_of_range(RdmaServiceStats* stats, RdmaStatus s) {
  ++stats->out_of_range;
  return s;
}

// Reads nwords at addr into the reply (already bounds-checked).
void read_words(const RdmaRegion& region, uint64_t addr, uint32_t nwords, RdmaReply* reply) {
  reply->nwords = nwords;
  for (uint32_t i = 0; i < nwords; ++i) reply->words[i] = region.load(addr + 8 * i);
}

// The words a request of `op` moves (its nwords); 0: a bad request.
uint32_t request_words(RdmaOp op, const uint64_t* w, uint32_t n) {
  const uint64_t arg = w[4];
  switch (op) {
    case RdmaOp::kRead:
    case RdmaOp::kIndirectRead:
    case RdmaOp::kWrite:
    case RdmaOp::kMax:
      return arg == 0 || arg > kRdmaMaxWords ? 0 : static_cast<uint32_t>(arg);
    case RdmaOp::kCas:
    case RdmaOp::kFaa:
      return 1;
    case RdmaOp::kScanRead:  // {nkeys, key, nwords}
      if (n < kRdmaHeadWords + 3 || arg == 0 || arg > kRdmaMaxScanKeys || w[6] == 0 || w[6] > kRdmaMaxWords) return 0;
      return static_cast<uint32_t>(w[6]);
  }
  return 0;
}

// SCAN: the first of nkeys (key, ptr) pairs at addr whose key matches;
// READ nwords at its ptr.
RdmaStatus scan_read(const uint64_t* w, const RdmaRegion& region, RdmaServiceStats* stats, RdmaReply* reply) {
  const uint64_t addr = w[3], nkeys = w[4], key = w[5];
  const auto nwords = static_cast<uint32_t>(w[6]);
  if (!region.valid(addr, static_cast<uint32_t>(2 * nkeys))) return out_of_range(stats, RdmaStatus::kOutOfRange);
  ++stats->scans;
  for (uint64_t i = 0; i < nkeys; ++i) {
    if (region.load(addr + 16 * i) != key) continue;
    const uint64_t ptr = region.load(addr + 16 * i + 8);
    if (!region.valid(ptr, nwords)) return out_of_range(stats, RdmaStatus::kBadPointer);
    read_words(region, ptr, nwords, reply);
    return RdmaStatus::kOk;
  }
  return RdmaStatus::kNotFound;
}

// MAX: the largest of nwords at addr (unsigned).
RdmaStatus max_of(uint64_t addr, uint32_t nwords, const RdmaRegion& region, RdmaServiceStats* stats,
                  RdmaReply* reply) {
  if (!region.valid(addr, nwords)) return out_of_range(stats, RdmaStatus::kOutOfRange);
  ++stats->maxes;
  uint64_t most = 0;
  for (uint32_t i = 0; i < nwords; ++i) most = std::max(most, region.load(addr + 8 * i));
  reply->nwords = 1;
  reply->words[0] = most;
  return RdmaStatus::kOk;
}

RdmaStatus execute(const uint64_t* w, uint32_t n, uint16_t len, RdmaRegion* region,
                   RdmaServiceStats* stats, RdmaReply* reply) {
  if (len < 8 * (kRdmaHeadWords + 1) || n < kRdmaHeadWords + 1) return bad(stats);
  const auto op = static_cast<RdmaOp>(w[2]);
  const uint64_t addr = w[3];
  const uint32_t nwords = request_words(op, w, n);
  if (nwords == 0 || len != rdma_request_len(op, nwords) || n < len / 8u) return bad(stats);
  switch (op) {
    case RdmaOp::kScanRead:
      return scan_read(w, *region, stats, reply);
    case RdmaOp::kMax:
      return max_of(addr, nwords, *region, stats, reply);
    case RdmaOp::kRead:
      if (!region->valid(addr, nwords)) return out_of_range(stats, RdmaStatus::kOutOfRange);
      ++stats->reads;
      read_words(*region, addr, nwords, reply);
      return RdmaStatus::kOk;
    case RdmaOp::kIndirectRead: {
      if (!region->valid(addr, 1)) return out_of_range(stats, RdmaStatus::kOutOfRange);
      const uint64_t ptr = region->load(addr);
      if (!region->valid(ptr, nwords)) return out_of_range(stats, RdmaStatus::kBadPointer);
      ++stats->indirect_reads;
      read_words(*region, ptr, nwords, reply);
      return RdmaStatus::kOk;
    }
    case RdmaOp::kWrite:
      if (!region->valid(addr, nwords)) return out_of_range(stats, RdmaStatus::kOutOfRange);
      ++stats->writes;
      for (uint32_t i = 0; i < nwords; ++i) region->store(addr + 8 * i, w[5 + i]);
      return RdmaStatus::kOk;
    case RdmaOp::kCas: {
      if (!region->valid(addr, 1)) return out_of_range(stats, RdmaStatus::kOutOfRange);
      ++stats->cas;
      const uint64_t old = region->compare_and_swap(addr, w[4], w[5]);
      if (old == w[4]) ++stats->cas_swapped;
      reply->nwords = 1;
      reply->words[0] = old;
      return RdmaStatus::kOk;
    }
    case RdmaOp::kFaa:
      if (!region->valid(addr, 1)) return out_of_range(stats, RdmaStatus::kOutOfRange);
      ++stats->faa;
      reply->nwords = 1;
      reply->words[0] = region->fetch_and_add(addr, w[4]);
      return RdmaStatus::kOk;
  }
  return bad(stats);
}

}  // namespace

bool execute_rdma(const uint64_t* words, uint32_t n, uint16_t len, RdmaRegion* region,
                  RdmaServiceStats* stats, RdmaReply* reply) {
  if (len < 16 || n < 2) {
    ++stats->dropped;
    return false;
  }
  reply->nwords = 0;
  reply->status = execute(words, n, len, region, stats, reply);
  if (reply->status != RdmaStatus::kOk) reply->nwords = 0;
  return true;
}

bool serve_rdma(Thread& t, uint16_t context, uint8_t priority, RdmaRegion* region,
                RdmaServiceStats* stats) {
  if (!bind_service(t, context, priority, "rdma")) return false;
  uint64_t words[kRdmaMaxRequestWords];
  RdmaReply reply;
  while (t.wait()) {
    const AppHeader h = AppHeader::from_word(t.read());
    const uint32_t n = std::min<uint32_t>(h.payload_words(), kRdmaMaxRequestWords);
    for (uint32_t i = 0; i < n; ++i) words[i] = t.read();
    if (execute_rdma(words, n, h.len, region, stats, &reply)) {
      (void)t.write(AppHeader{h.ip, h.context, static_cast<uint16_t>(24 + 8 * reply.nwords)}.word());
      (void)t.write(words[0]);
      (void)t.write(words[1]);
      (void)t.write(static_cast<uint64_t>(reply.status));
      for (uint32_t i = 0; i < reply.nwords; ++i) (void)t.write(reply.words[i]);
    }
    t.msg_done();
  }
  return true;
}

}  // namespace nanopu::apps
