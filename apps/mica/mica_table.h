// The store behind the key-value service, after MICA (Lim et al., "MICA: A
// Holistic Approach to Fast In-Memory Key-Value Storage", NSDI'14, §4.3):
// a *lossy* index of set-associative buckets pointing into a *circular log*.
//
// - Index: 2^buckets_log2 buckets of kWays entries (one 64-byte line each);
//   an entry is a 16-bit tag from the key hash and a 48-bit log position. A
//   full bucket evicts its oldest entry (the store is a cache, as MICA's is
//   in its cache mode): counted in evictions().
// - Log: items appended at the head; the oldest are overwritten when it
//   wraps, and an index entry pointing at an overwritten item is stale (a
//   miss). Values have one size in this protocol (512 bytes), so the log is
//   a ring of fixed-size items and a position is an item number, and a SET
//   of a key already stored updates its item in place: the log only grows
//   with new keys, and loses one only when more distinct keys than it holds
//   have been written since (overwritten()).
//
// One table per thread, touched only by it (MICA's EREW partitioning, as
// the nanoPU evaluation ran it: "each core holds distinct key ranges"), so
// nothing here is synchronised.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "apps/mica/kv_protocol.h"

namespace nanopu::apps {

struct MicaTableParams {
  uint32_t buckets_log2 = 14;          // 16384 buckets x 7 ways
  size_t log_bytes = size_t{16} << 20;  // about 31,000 items of 512-byte values
  uint32_t value_words = kKvValueWords;
};

class MicaTable {
 public:
  static constexpr uint32_t kWays = 7;

  explicit MicaTable(const MicaTableParams& params);

  // GET: the value's words in the log, valid until the next set/reserve; or
  // null (never stored, evicted from its bucket, or overwritten in the log).
  [[nodiscard]] const uint64_t* get(const KvKey& key, uint64_t hash) const;
  // SET, copying value_words words from `value`.
  void set(const KvKey& key, uint64_t hash, const uint64_t* value);
  // SET in two steps, for a caller that writes the value in place (the
  // register-file variant reads it straight from the network into the log):
  // reserve() returns where the value's words go; commit() indexes the item.
  // A reservation that is never committed is simply overwritten.
  [[nodiscard]] uint64_t* reserve(const KvKey& key, uint64_t hash);
  void commit();

  [[nodiscard]] uint32_t value_words() const { return value_words_; }
  [[nodiscard]] uint64_t sets() const { return sets_; }            // committed
  [[nodiscard]] uint64_t evictions() const { return evictions_; }  // lossy index: bucket full
  [[nodiscard]] uint64_t overwritten() const { return overwritten_; }  // log wrapped over an item
  [[nodiscard]] uint64_t capacity() const { return capacity_; }    // items the log holds

 private:
  static constexpr uint64_t kPosBits = 48;
  static constexpr uint64_t kPosMask = (uint64_t{1} << kPosBits) - 1;
  struct alignas(64) Bucket {
    uint64_t entry[kWays + 1] = {};  // tag << 48 | position; 0 empty; the last unused
  };
  [[nodiscard]] static uint64_t tag_of(uint64_t hash) { return (hash >> kPosBits) | 1; }
  // A key's bucket, from hash bits 16 and up: a partitioned store's keys
  // share their low bits (a client sends key_hash mod N to partition i), so
  // buckets chosen by the low bits left N - 1 of every N unused, and a
  // partition of 10k keys evicted some (MICA, too, takes the partition and
  // the bucket from different bits of the hash).
  [[nodiscard]] const Bucket& bucket_of(uint64_t hash) const { return buckets_[(hash >> 16) & mask_]; }
  [[nodiscard]] Bucket& bucket_of(uint64_t hash) { return buckets_[(hash >> 16) & mask_]; }
  [[nodiscard]] uint64_t* item(uint64_t pos) { return &log_[(pos % capacity_) * item_words_]; }
  [[nodiscard]] const uint64_t* item(uint64_t pos) const {
    return &log_[(pos % capacity_) * item_words_];
  }
  [[nodiscard]] bool live(uint64_t pos) const { return pos < head_ && head_ - pos <= capacity_; }
  // The live item of this key, if any: its entry's index in the bucket.
  [[nodiscard]] int find(const Bucket& b, const KvKey& key, uint64_t hash) const;

  uint32_t value_words_;
  uint32_t item_words_;  // hash, key, value
  uint64_t capacity_;
  uint64_t mask_;
  std::vector<Bucket> buckets_;
  std::unique_ptr<uint64_t[]> log_;
  uint64_t head_ = 0;           // the next item's position
  bool reserved_ = false;
  bool in_place_ = false;       // the reservation updates a stored item
  uint64_t sets_ = 0, evictions_ = 0, overwritten_ = 0;
};

}  // namespace nanopu::apps
