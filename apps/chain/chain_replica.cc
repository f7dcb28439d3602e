#include "apps/chain/chain_replica.h"

#include <algorithm>
#include <cstdio>
#include <string>

#include "apps/boot/bind_service.h"

namespace nanopu::apps {
namespace {

// The fixed part after meta and the nodes: key, key_hash (and the value).
void write_key(Thread& t, const ChainMessage& m) {
  (void)t.write(m.key[0]);
  (void)t.write(m.key[1]);
  (void)t.write(m.key_hash);
}

void serve_one(Thread& t, ChainStore* store, ChainReplicaStats* stats) {
  // The whole message into memory first: at most 269 words (a 255-node
  // chain), and the parser then sees one buffer (fuzz/chain_message_fuzz.cc).
  uint64_t words[kChainMaxWords];
  const AppHeader h = AppHeader::from_word(t.read());
  const uint32_t n = std::min<uint32_t>(h.payload_words(), kChainMaxWords);
  for (uint32_t i = 0; i < n; ++i) words[i] = t.read();
  ChainMessage m;
  switch (parse_chain_message(words, n, h.len, &m)) {
    case ChainParse::kTooShort:
      ++stats->dropped;
      return;
    case ChainParse::kBad: {
      ++stats->bad;
      ChainMeta bad = m.meta;
      bad.flags |= kChainBad;
      (void)t.write(AppHeader{h.ip, h.context, 24}.word());
      (void)t.write(m.service_time);
      (void)t.write(m.sent_time);
      (void)t.write(bad.word());
      return;
    }
    case ChainParse::kOk:
      break;
  }
  ChainMeta out = m.meta;
  out.flags &= static_cast<uint8_t>(~kChainFromTester);
  if (m.has_value) {
    ++stats->writes;
    if (store->write(m.key, m.meta.seq, m.value) == ChainStore::Write::kStale) ++stats->stale_writes;
    if (m.meta.node_cnt != 0) {
      // On to node[0], without it.
      ++stats->forwarded;
      out.node_cnt = static_cast<uint8_t>(m.meta.node_cnt - 1);
      const auto next = m.nodes[0];
      (void)t.write(AppHeader{static_cast<uint32_t>(next), static_cast<uint16_t>(next >> 32),
                              chain_len(out.node_cnt, true)}
                        .word());
      (void)t.write(m.service_time);
      (void)t.write(m.sent_time);
      (void)t.write(out.word());
      for (uint32_t i = 1; i < m.meta.node_cnt; ++i) (void)t.write(m.nodes[i]);
      write_key(t, m);
      for (uint64_t v : m.value) (void)t.write(v);
      return;
    }
    ++stats->acks;  // the tail: acknowledge without the value
    (void)t.write(AppHeader{out.client_ip, out.client_ctx, chain_len(0, false)}.word());
    (void)t.write(m.service_time);
    (void)t.write(m.sent_time);
    (void)t.write(out.word());
    write_key(t, m);
    return;
  }
  ++stats->reads;
  const ChainStore::Entry* e = store->read(m.key);
  if (e == nullptr) {
    ++stats->read_misses;
    out.flags |= kChainNotFound;
  } else {
    out.seq = e->seq;  // which write the value is from
  }
  (void)t.write(AppHeader{out.client_ip, out.client_ctx, chain_len(0, e != nullptr)}.word());
  (void)t.write(m.service_time);
  (void)t.write(m.sent_time);
  (void)t.write(out.word());
  write_key(t, m);
  if (e != nullptr)
    for (uint64_t v : e->value) (void)t.write(v);
}

}  // namespace

bool serve_chain(Thread& t, uint16_t context, uint8_t priority, ChainStore* store,
                 ChainReplicaStats* stats) {
  if (!bind_service(t, context, priority, "chain")) return false;
  while (t.wait()) {
    serve_one(t, store, stats);
    t.msg_done();
  }
  return true;
}

}  // namespace nanopu::apps
