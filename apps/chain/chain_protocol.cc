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
  if (len != chain_len(write) || n < len / 8u) return ChainParse::kBad;
  out->epoch = words[3];
  out->version = words[4];
  out->key = {words[5], words[6]};
  out->key_hash = words[7];
  out->has_value = write;
  if (write)
    for (uint32_t i = 0; i < kChainValueWords; ++i) out->value[i] = words[kChainFixedWords + i];
  return ChainParse::kOk;
}

}  // namespace nanopu::apps
