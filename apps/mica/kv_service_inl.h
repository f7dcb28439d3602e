// The naive request path, shared by serve_kv() and the request fuzzer.
#pragma once

#include <algorithm>
#include <cstring>

#include "nanopu/app_header.h"

namespace nanopu::apps {

template <typename Reply>
uint16_t handle_kv_words(const uint64_t* words, uint32_t nwords, MicaTable* table,
                         KvServiceStats* stats, Reply&& reply) {
  if (nwords == 0) return 0;
  const AppHeader h = AppHeader::from_word(words[0]);
  const uint32_t payload = std::min<uint32_t>(h.payload_words(), nwords - 1);
  const uint64_t* p = words + 1;
  auto word = [&](uint32_t i) { return i < payload ? p[i] : 0; };
  const KvCheck check = check_kv_request(h.len, word(2));
  if (check == KvCheck::kTooShort) {
    ++stats->dropped;
    return 0;
  }
  uint64_t out[2 + kKvValueWords] = {word(0), word(1)};
  if (check != KvCheck::kOk) {
    ++stats->bad_requests;
    out[2] = kKvBadRequest;
    reply(h, out, kKvStatusReplyBytes);
    return kKvStatusReplyBytes;
  }
  const KvKey key{word(3), word(4)};
  const uint64_t hash = word(5);
  if (word(2) == kKvSet) {
    ++stats->sets;
    uint64_t value[kKvValueWords];
    for (uint32_t i = 0; i < kKvValueWords; ++i) value[i] = word(kKvHeadWords + i);
    table->set(key, hash, value);
    out[2] = kKvStored;
    reply(h, out, kKvStatusReplyBytes);
    return kKvStatusReplyBytes;
  }
  ++stats->gets;
  const uint64_t* v = table->get(key, hash);
  if (v == nullptr) {
    out[2] = kKvNotFound;
    reply(h, out, kKvStatusReplyBytes);
    return kKvStatusReplyBytes;
  }
  ++stats->get_hits;
  std::memcpy(out + 2, v, sizeof(uint64_t) * kKvValueWords);
  reply(h, out, kKvValueReplyBytes);
  return kKvValueReplyBytes;
}

}  // namespace nanopu::apps
