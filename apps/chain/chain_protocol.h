// Chain replication's messages (docs/apps.md; van Renesse & Schneider,
// "Chain Replication for Supporting High Throughput and Availability",
// OSDI'04; the nanoPU tail-latency version §4.3 measured it after
// NetChain). One layout for a client's request, a write forwarded down the
// chain, and a reply:
//
//   {service_time, sent_time, meta, epoch, version, key[0], key[1], key_hash,
//    value[8] (WRITEs, READ replies that found the key, refusals: the config)}
//   meta = flags << 56 | client_ctx << 32 | client_ip      len = 64 (+ 64)
//
// A client's WRITE goes to the head, which gives it the key's next version
// (64 bits: the head's newest of the key + 1; one order per key) and sends
// it to its successor; each replica stores a write whose version is newer
// than the key's and passes every write on; the tail acknowledges to
// (client_ip, client_ctx) with the version, without the value. A READ goes
// to the tail and is answered with the value and its version. A replica
// takes a forwarded write only from its predecessor in its configuration,
// a client's WRITE only as the head, a READ only as the tail (the acking
// tail while a new replica joins behind it); anything else is refused with
// kChainRefused and the replica's configuration in the value words
// (chain_config.h), from which the client learns where to go.
//
// nanopu's additions to the layout the prototype used: a READ of an absent
// key is answered without a value and with kChainNotFound set; a message
// that cannot be parsed but names its sender is answered to the sender (the
// header's address) with {service_time, sent_time, meta | kChainBad << 56},
// len 24.
#pragma once

#include <array>
#include <cstdint>

#include "nanopu/app_header.h"

namespace nanopu::apps {

inline constexpr uint8_t kChainFromClient = 0x80;  // a client's WRITE: the head gives it its version
inline constexpr uint8_t kChainRead = 0x40;
inline constexpr uint8_t kChainWrite = 0x20;
inline constexpr uint8_t kChainNotFound = 0x10;    // READ reply: key absent
inline constexpr uint8_t kChainBad = 0x08;         // malformed message
inline constexpr uint8_t kChainRefused = 0x04;     // not the head (WRITE) or the tail (READ): see the config
inline constexpr uint32_t kChainValueWords = 8;    // 64-byte values
inline constexpr uint32_t kChainFixedWords = 8;    // service_time .. key_hash
inline constexpr uint32_t kChainMaxWords = kChainFixedWords + kChainValueWords;

using ChainKey = std::array<uint64_t, 2>;
using ChainValue = std::array<uint64_t, kChainValueWords>;

struct ChainMeta {
  uint8_t flags = 0;
  uint16_t client_ctx = 0;
  uint32_t client_ip = 0;

  [[nodiscard]] constexpr uint64_t word() const {
    return uint64_t{flags} << 56 | uint64_t{client_ctx} << 32 | client_ip;
  }
  [[nodiscard]] static constexpr ChainMeta from_word(uint64_t w) {
    return ChainMeta{static_cast<uint8_t>(w >> 56), static_cast<uint16_t>(w >> 32), static_cast<uint32_t>(w)};
  }
};

// A replica's address in a configuration and in the --chain flag.
[[nodiscard]] constexpr uint64_t chain_node(uint32_t ip, uint16_t ctx) { return uint64_t{ctx} << 32 | ip; }
[[nodiscard]] constexpr uint32_t chain_node_ip(uint64_t n) { return static_cast<uint32_t>(n); }
[[nodiscard]] constexpr uint16_t chain_node_ctx(uint64_t n) { return static_cast<uint16_t>(n >> 32); }

// Message length in bytes, with or without the value words.
[[nodiscard]] constexpr uint16_t chain_len(bool value) {
  return static_cast<uint16_t>(8 * (kChainFixedWords + (value ? kChainValueWords : 0)));
}

// A message as read from the FIFO, parsed.
struct ChainMessage {
  uint64_t service_time = 0;
  uint64_t sent_time = 0;
  ChainMeta meta;
  uint64_t epoch = 0;
  uint64_t version = 0;
  ChainKey key{};
  uint64_t key_hash = 0;
  bool has_value = false;
  ChainValue value{};
};

enum class ChainParse : uint8_t {
  kOk,
  kTooShort,   // not even service_time, sent_time and meta: nothing to answer with
  kBad,        // flags and len disagree (answered kChainBad to the sender)
};

// Parses `len` payload bytes held in words[0..n). A request is a WRITE (with
// its value) or a READ (without), never both.
[[nodiscard]] ChainParse parse_chain_message(const uint64_t* words, uint32_t n, uint16_t len,
                                             ChainMessage* out);

}  // namespace nanopu::apps
