#include "apps/mica/kv_protocol.h"

#include <absl/hash/internal/city.h>

namespace nanopu::apps {

uint64_t kv_key_hash(const KvKey& key) {
  unsigned char bytes[kKvKeyWords * 8];
  for (uint32_t w = 0; w < kKvKeyWords; ++w)
    for (int b = 0; b < 8; ++b) bytes[w * 8 + b] = static_cast<unsigned char>(key[w] >> (56 - 8 * b));
  return absl::hash_internal::CityHash64(reinterpret_cast<const char*>(bytes), sizeof(bytes));
}

}  // namespace nanopu::apps
