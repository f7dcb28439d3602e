// Chain replication's messages (docs/apps.md; the nanoPU tail-latency
// version §4.3, after NetChain): one layout for a client's request, a
// request forwarded down the chain, and the reply.
//
//   {service_time, sent_time, meta, node[node_cnt], key[0], key[1], key_hash,
//    value[8] (WRITE requests, READ replies that found the key)}
//   meta = flags << 56 | seq << 48 | node_cnt << 40 | client_ctx << 32 | client_ip
//   node = ctx << 32 | ip        len = 24 + 8 * node_cnt + 24 (+ 64)
//
// A WRITE goes to the head with the rest of the chain in node[]; each
// replica stores it and forwards it to node[0] with that node removed; the
// tail (node_cnt 0) acknowledges to (client_ip, client_ctx) without the
// value. A READ goes to the tail and is answered with the value. A replica
// applies a WRITE only if its seq is newer than the key's (RFC 1982 serial
// arithmetic over 8 bits): a WRITE sent again, or overtaken by a later one,
// changes nothing, and is still forwarded and acknowledged.
//
// nanopu's additions (the prototype defined no replies for these): a READ
// of an absent key is answered without a value and with kChainNotFound set;
// a message that cannot be parsed but names its sender is answered to the
// sender (the header's address) with {service_time, sent_time, meta |
// kChainBad << 56}, len 24.
#pragma once

#include <array>
#include <cstdint>
#include <optional>

#include "nanopu/app_header.h"

namespace nanopu::apps {

inline constexpr uint8_t kChainFromTester = 0x80;  // set by the client (the prototype's tester)
inline constexpr uint8_t kChainRead = 0x40;
inline constexpr uint8_t kChainWrite = 0x20;
inline constexpr uint8_t kChainNotFound = 0x10;    // nanopu: READ reply, key absent
inline constexpr uint8_t kChainBad = 0x08;         // nanopu: malformed message
inline constexpr uint32_t kChainValueWords = 8;    // 64-byte values
inline constexpr uint32_t kChainMaxNodes = 255;    // node_cnt is 8 bits
inline constexpr uint32_t kChainFixedWords = 6;    // service_time, sent_time, meta, key[2], key_hash
inline constexpr uint32_t kChainMaxWords = kChainFixedWords + kChainMaxNodes + kChainValueWords;

using ChainKey = std::array<uint64_t, 2>;
using ChainValue = std::array<uint64_t, kChainValueWords>;

struct ChainMeta {
  uint8_t flags = 0;
  uint8_t seq = 0;
  uint8_t node_cnt = 0;
  uint8_t client_ctx = 0;
  uint32_t client_ip = 0;

  [[nodiscard]] constexpr uint64_t word() const {
    return uint64_t{flags} << 56 | uint64_t{seq} << 48 | uint64_t{node_cnt} << 40 |
           uint64_t{client_ctx} << 32 | client_ip;
  }
  [[nodiscard]] static constexpr ChainMeta from_word(uint64_t w) {
    return ChainMeta{static_cast<uint8_t>(w >> 56), static_cast<uint8_t>(w >> 48),
                     static_cast<uint8_t>(w >> 40), static_cast<uint8_t>(w >> 32),
                     static_cast<uint32_t>(w)};
  }
};

// A replica's address in node[].
[[nodiscard]] constexpr uint64_t chain_node(uint32_t ip, uint16_t ctx) { return uint64_t{ctx} << 32 | ip; }

// Message length in bytes for node_cnt nodes, with or without the value.
[[nodiscard]] constexpr uint16_t chain_len(uint32_t node_cnt, bool value) {
  return static_cast<uint16_t>(8 * (kChainFixedWords + node_cnt + (value ? kChainValueWords : 0)));
}

// A message as read from the FIFO, parsed.
struct ChainMessage {
  uint64_t service_time = 0;
  uint64_t sent_time = 0;
  ChainMeta meta;
  const uint64_t* nodes = nullptr;  // meta.node_cnt words, inside the parsed buffer
  ChainKey key{};
  uint64_t key_hash = 0;
  bool has_value = false;
  ChainValue value{};
};

enum class ChainParse : uint8_t {
  kOk,
  kTooShort,   // not even service_time, sent_time and meta: nothing to answer with
  kBad,        // flags, node_cnt and len disagree (answered kChainBad to the sender)
};

// Parses `len` payload bytes held in words[0..n). A request is a WRITE (with
// its value) or a READ (without, to the tail: node_cnt 0), never both.
[[nodiscard]] ChainParse parse_chain_message(const uint64_t* words, uint32_t n, uint16_t len,
                                             ChainMessage* out);

}  // namespace nanopu::apps
