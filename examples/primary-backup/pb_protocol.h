// The primary-backup register store's messages, on calls (nanopu/rpc.h):
// the payload words after the call word.
//
//   request  w0 = op << 56        op: WRITE, READ (a client to the primary),
//                                     REPLICATE, SNAPSHOT (the primary to the backup)
//            w1 = key
//            WRITE, REPLICATE: w2 = value
//            REPLICATE:        w3 = the write's sequence number (the primary's)
//   reply    w0 = status << 56    OK, NOT_FOUND (a READ of a key never
//                                 written), BAD_REQUEST
//            READ, OK: w1 = value
//            SNAPSHOT, OK: w1 = n, then n entries of three words: key,
//                          value, sequence number (the backup's every key)
#pragma once

#include <cstdint>

namespace pb {

enum class Op : uint8_t { kWrite = 1, kRead = 2, kReplicate = 3, kSnapshot = 4 };
enum class Status : uint8_t { kOk = 0, kNotFound = 1, kBadRequest = 2 };

[[nodiscard]] constexpr uint64_t head(uint8_t kind) { return uint64_t{kind} << 56; }
[[nodiscard]] constexpr uint8_t kind_of(uint64_t w0) { return static_cast<uint8_t>(w0 >> 56); }

// Request bytes of each op.
inline constexpr uint32_t kWriteBytes = 24, kReadBytes = 16, kReplicateBytes = 32, kSnapshotBytes = 8;
// The keys a SNAPSHOT reply holds (a call's payload is at most 65527 bytes).
inline constexpr uint32_t kSnapshotMaxKeys = (65527 - 16) / 24;

}  // namespace pb
