#include "apps/mica/mica_table.h"

#include <algorithm>
#include <cassert>
#include <cstring>

namespace nanopu::apps {

MicaTable::MicaTable(const MicaTableParams& p)
    : value_words_(p.value_words),
      item_words_(1 + kKvKeyWords + p.value_words),
      capacity_(std::max<uint64_t>(1, p.log_bytes / (uint64_t{item_words_} * 8))),
      mask_((uint64_t{1} << p.buckets_log2) - 1),
      buckets_(size_t{1} << p.buckets_log2),
      log_(new uint64_t[capacity_ * item_words_]()) {}

int MicaTable::find(const Bucket& b, const KvKey& key, uint64_t hash) const {
  const uint64_t tag = tag_of(hash);
  for (uint32_t w = 0; w < kWays; ++w) {
    const uint64_t e = b.entry[w];
    if (e == 0 || (e >> kPosBits) != tag) continue;
    const uint64_t pos = e & kPosMask;
    if (!live(pos)) continue;
    const uint64_t* it = item(pos);
    if (it[0] == hash && it[1] == key[0] && it[2] == key[1]) return static_cast<int>(w);
  }
  return -1;
}

const uint64_t* MicaTable::get(const KvKey& key, uint64_t hash) const {
  const Bucket& b = bucket_of(hash);
  const int w = find(b, key, hash);
  return w < 0 ? nullptr : item(b.entry[w] & kPosMask) + 1 + kKvKeyWords;
}

uint64_t* MicaTable::reserve(const KvKey& key, uint64_t hash) {
  reserved_ = true;
  // A key already stored is updated in place: values have one size, and the
  // log then only grows with new keys (MICA's store mode updates in place
  // when the new value fits).
  const Bucket& b = bucket_of(hash);
  if (const int w = find(b, key, hash); w >= 0) {
    in_place_ = true;
    return item(b.entry[w] & kPosMask) + 1 + kKvKeyWords;
  }
  in_place_ = false;
  uint64_t* it = item(head_);
  if (head_ >= capacity_) ++overwritten_;  // the oldest item goes (its key is lost)
  it[0] = hash;
  it[1] = key[0];
  it[2] = key[1];
  return it + 1 + kKvKeyWords;
}

void MicaTable::commit() {
  assert(reserved_ && "commit() without reserve()");
  reserved_ = false;
  ++sets_;
  if (in_place_) return;
  const uint64_t* it = item(head_);
  const uint64_t hash = it[0];
  const KvKey key{it[1], it[2]};
  Bucket& b = bucket_of(hash);
  // The same key's entry, else a free or stale one, else the oldest (lossy).
  int w = find(b, key, hash);
  if (w < 0) {
    uint64_t oldest = UINT64_MAX;
    bool evict = true;  // unless a free or stale entry turns up
    for (uint32_t i = 0; i < kWays; ++i) {
      const uint64_t e = b.entry[i];
      if (e == 0 || !live(e & kPosMask)) {
        w = static_cast<int>(i);
        evict = false;
        break;
      }
      if ((e & kPosMask) < oldest) {
        oldest = e & kPosMask;
        w = static_cast<int>(i);
      }
    }
    if (evict) ++evictions_;
  }
  b.entry[w] = tag_of(hash) << kPosBits | (head_ & kPosMask);
  ++head_;
}

void MicaTable::set(const KvKey& key, uint64_t hash, const uint64_t* value) {
  std::memcpy(reserve(key, hash), value, size_t{value_words_} * 8);
  commit();
}

}  // namespace nanopu::apps
