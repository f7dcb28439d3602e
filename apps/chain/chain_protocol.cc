#include "apps/chain/chain_protocol.h"

namespace nanopu::apps {

ChainParse parse_chain_message(const uint64_t* words, uint32_t n, uint16_t len, ChainMessage* out) {
  if (len < 24 || n < 3) return ChainParse::kTooShort;
  out->service_time = words[0];
  out->sent_time = words[1];
  out->meta = ChainMeta::from_word(words[2]);
  const uint8_t op = out->meta.flags & (kChainRead | kChainWrite);
  if (op != kChainRead && op != kChainWrite) return ChainParse::kBad;
  const bool write = op == kChainWrite;
  if (!write && out->meta.node_cnt != 0) return ChainParse::kBad;  // READs go to the tail
  const uint32_t cnt = out->meta.node_cnt;
  if (len != chain_len(cnt, write) || n < len / 8u) return ChainParse::kBad;
  out->nodes = words + 3;
  const uint64_t* k = words + 3 + cnt;
  out->key = {k[0], k[1]};
  out->key_hash = k[2];
  out->has_value = write;
  if (write)
    for (uint32_t i = 0; i < kChainValueWords; ++i) out->value[i] = k[3 + i];
  return ChainParse::kOk;
}

}  // namespace nanopu::apps
