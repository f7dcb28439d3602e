#include "apps/mica/kv_service.h"

#include <cstdio>
#include <string>

#include "apps/boot/bind_service.h"

namespace nanopu::apps {
namespace {

// The declared work of the request just served (counted time in
// nanopu-sim, Thread::charge_work), from what it did: a table access per
// GET or SET, and in kNaive a value's copy through memory per SET and GET hit.
double kv_work_cycles(const KvServiceStats& before, const KvServiceStats& after, KvVariant variant) {
  const uint64_t table_ops = (after.gets + after.sets) - (before.gets + before.sets);
  const uint64_t copies = (after.get_hits + after.sets) - (before.get_hits + before.sets);
  const double copy = variant == KvVariant::kNaive ? kKvValueWords * kKvNaiveCopyCyclesPerWord : 0;
  return kKvTableCycles * static_cast<double>(table_ops) + copy * static_cast<double>(copies);
}

// A reply to the request's source: words[0..len/8) after the header.
void write_reply(Thread& t, const AppHeader& request, const uint64_t* words, uint16_t len) {
  (void)t.write(AppHeader{request.ip, request.context, len}.word());
  for (uint32_t i = 0; i < len / 8u; ++i) (void)t.write(words[i]);
}

// kNaive: the whole request into memory first, then the store. `charge`
// before a reply: the work it follows is done by then (charge_work).
template <typename Charge>
void serve_naive(Thread& t, MicaTable* table, KvServiceStats* stats, Charge&& charge) {
  uint64_t words[1 + kKvHeadWords + kKvValueWords];
  const uint64_t hdr = t.read();
  const uint32_t payload = AppHeader::from_word(hdr).payload_words();
  words[0] = hdr;
  // Read what fits; a longer (malformed) request's extra words are flushed
  // by msg_done().
  const uint32_t n = std::min<uint32_t>(payload, kKvHeadWords + kKvValueWords);
  for (uint32_t i = 0; i < n; ++i) words[1 + i] = t.read();
  (void)handle_kv_words(words, 1 + n, table, stats,
                        [&](const AppHeader& h, const uint64_t* out, uint16_t len) {
                          charge();
                          write_reply(t, h, out, len);
                        });
}

// kRegisterFile: the head into registers, the value between FIFO and log.
template <typename Charge>
void serve_register_file(Thread& t, MicaTable* table, KvServiceStats* stats, Charge&& charge) {
  const AppHeader h = AppHeader::from_word(t.read());
  const uint32_t payload = h.payload_words();
  KvHead r;
  if (payload >= 1) r.service_time = t.read();
  if (payload >= 2) r.sent_time = t.read();
  if (payload >= 3) r.op = t.read();
  const KvCheck check = check_kv_request(h.len, r.op);
  if (check == KvCheck::kTooShort) {
    ++stats->dropped;
    return;
  }
  auto status_reply = [&](uint64_t status) {
    charge();
    (void)t.write(AppHeader{h.ip, h.context, kKvStatusReplyBytes}.word());
    (void)t.write(r.service_time);
    (void)t.write(r.sent_time);
    (void)t.write(status);
  };
  if (check != KvCheck::kOk) {
    ++stats->bad_requests;
    status_reply(kKvBadRequest);
    return;
  }
  r.key[0] = t.read();
  r.key[1] = t.read();
  r.key_hash = t.read();
  if (r.op == kKvSet) {
    ++stats->sets;
    uint64_t* v = table->reserve(r.key, r.key_hash);
    for (uint32_t i = 0; i < kKvValueWords; ++i) v[i] = t.read();
    table->commit();
    status_reply(kKvStored);
    return;
  }
  ++stats->gets;
  const uint64_t* v = table->get(r.key, r.key_hash);
  if (v == nullptr) {
    status_reply(kKvNotFound);
    return;
  }
  ++stats->get_hits;
  charge();
  (void)t.write(AppHeader{h.ip, h.context, kKvValueReplyBytes}.word());
  (void)t.write(r.service_time);
  (void)t.write(r.sent_time);
  for (uint32_t i = 0; i < kKvValueWords; ++i) (void)t.write(v[i]);
}

}  // namespace

bool serve_kv(Thread& t, uint16_t context, uint8_t priority, KvVariant variant, MicaTable* table,
              KvServiceStats* stats) {
  if (!bind_service(t, context, priority, "kv")) return false;
  while (t.wait()) {
    const KvServiceStats before = *stats;
    auto charge = [&] { t.charge_work(kv_work_cycles(before, *stats, variant)); };
    if (variant == KvVariant::kNaive) serve_naive(t, table, stats, charge);
    else serve_register_file(t, table, stats, charge);
    t.msg_done();
  }
  return true;
}

}  // namespace nanopu::apps
