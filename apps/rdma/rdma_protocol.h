// One-sided RDMA operations served by a nanoPU thread (nanoPU OSDI'21 §4.1,
// Table 2: read, write, compare-and-swap, fetch-and-add, indirect read; and
// two §4.1 proposes beyond them, scan-and-read and return-max). The
// prototype published no layout; this one is nanopu's (docs/apps.md), word
// aligned, one request and one reply per operation:
//
//   request {service_time, sent_time, op, addr, arg...}
//     READ      op 1  arg {nwords}                   reply {.., status, data[nwords]}
//     WRITE     op 2  arg {nwords, data[nwords]}     reply {.., status}
//     CAS       op 3  arg {expected, desired}        reply {.., status, old}
//     FAA       op 4  arg {add}                      reply {.., status, old}
//     INDIRECT  op 5  arg {nwords}: ptr = word at addr, then READ nwords at ptr
//     SCAN      op 6  arg {nkeys, key, nwords}: at addr, nkeys (key, ptr) word
//                     pairs; the first whose key matches: READ nwords at its ptr
//                     (none: status kNotFound)
//     MAX       op 7  arg {nwords}                   reply {.., status, the largest
//                                                    of the nwords (unsigned)}
//   reply {service_time, sent_time, status, ...}; an error reply is 24 bytes.
//
// addr (and an indirect read's pointer) is a byte offset into the server's
// registered region, 8-byte aligned; every access is checked against the
// region's bounds before any word is touched.
#pragma once

#include <cstdint>

namespace nanopu::apps {

enum class RdmaOp : uint64_t {
  kRead = 1,
  kWrite = 2,
  kCas = 3,
  kFaa = 4,
  kIndirectRead = 5,
  kScanRead = 6,
  kMax = 7,
};

enum class RdmaStatus : uint64_t {
  kOk = 0,
  kOutOfRange = 1,      // addr .. addr + 8·nwords is not inside the region, or not aligned
  kBadRequest = 2,      // unknown op, nwords 0 or above kRdmaMaxWords, length disagrees
  kBadPointer = 3,      // an indirect or scan read's pointer is out of range or unaligned
  kNotFound = 4,        // a scan matched no key
};

inline constexpr uint32_t kRdmaMaxWords = 128;  // per READ/WRITE: 1 KiB, one packet
inline constexpr uint32_t kRdmaMaxScanKeys = 64;  // a SCAN's (key, ptr) pairs: a small table, 1 KiB
inline constexpr uint32_t kRdmaHeadWords = 4;   // service_time, sent_time, op, addr
inline constexpr uint32_t kRdmaMaxRequestWords = kRdmaHeadWords + 1 + kRdmaMaxWords;

// Request and reply lengths in bytes.
[[nodiscard]] constexpr uint16_t rdma_request_len(RdmaOp op, uint32_t nwords) {
  switch (op) {
    case RdmaOp::kRead:
    case RdmaOp::kIndirectRead: return 8 * (kRdmaHeadWords + 1);
    case RdmaOp::kWrite: return static_cast<uint16_t>(8 * (kRdmaHeadWords + 1 + nwords));
    case RdmaOp::kCas: return 8 * (kRdmaHeadWords + 2);
    case RdmaOp::kFaa: return 8 * (kRdmaHeadWords + 1);
    case RdmaOp::kScanRead: return 8 * (kRdmaHeadWords + 3);
    case RdmaOp::kMax: return 8 * (kRdmaHeadWords + 1);
  }
  return 0;
}
[[nodiscard]] constexpr uint16_t rdma_reply_len(RdmaOp op, uint32_t nwords) {
  switch (op) {
    case RdmaOp::kRead:
    case RdmaOp::kIndirectRead:
    case RdmaOp::kScanRead: return static_cast<uint16_t>(8 * (3 + nwords));
    case RdmaOp::kWrite: return 24;
    case RdmaOp::kCas:
    case RdmaOp::kFaa:
    case RdmaOp::kMax: return 32;
  }
  return 24;
}
inline constexpr uint16_t kRdmaErrorReplyBytes = 24;

// The service's declared work per operation beyond moving its words, for
// the timing model's modelled column: a bounds check and one load, store or
// atomic in the core's L1, estimated at 10 cycles (nanopu's estimate, not
// measured on nanoPU hardware); an indirect read does it twice.
inline constexpr double kRdmaOpCycles = 10;

}  // namespace nanopu::apps
