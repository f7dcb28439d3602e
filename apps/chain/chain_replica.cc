#include "apps/chain/chain_replica.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "apps/boot/bind_service.h"
#include "apps/chain/chain_control.h"
#include "nanopu/rpc.h"

namespace nanopu::apps {
namespace {

// The fixed words after meta: epoch, version, key, key_hash.
void write_tail(Thread& t, uint64_t epoch, uint64_t version, const ChainMessage& m) {
  for (uint64_t w : {epoch, version, m.key[0], m.key[1], m.key_hash}) (void)t.write(w);
}

// A client's request to the wrong end, or from a replica not in a
// configuration: refused, the configuration in the value words.
void refuse(Thread& t, const AppHeader& h, const ChainMessage& m, const ChainReplicaState& s) {
  ChainMeta out = m.meta;
  out.flags = static_cast<uint8_t>((m.meta.flags & (kChainRead | kChainWrite)) | kChainRefused);
  (void)t.write(AppHeader{m.meta.client_ip, m.meta.client_ctx, chain_len(true)}.word());
  for (uint64_t w : {m.service_time, m.sent_time, out.word()}) (void)t.write(w);
  write_tail(t, s.config.epoch, 0, m);
  std::vector<uint64_t> c = s.config.words();
  c.resize(kChainValueWords, 0);
  for (uint64_t w : c) (void)t.write(w);
  (void)h;
}

// A write stored here: passed on to the successor (with its version), and
// acknowledged as the acking tail.
void pass_on(Thread& t, const ChainMessage& m, uint64_t version, ChainReplicaState& s) {
  const uint64_t next = s.config.successor(s.self);
  ChainMeta out = m.meta;
  out.flags = kChainWrite;
  if (next != 0) {
    ++s.stats.forwarded;
    (void)t.write(AppHeader{chain_node_ip(next), chain_node_ctx(next), chain_len(true)}.word());
    for (uint64_t w : {m.service_time, m.sent_time, out.word()}) (void)t.write(w);
    write_tail(t, s.config.epoch, version, m);
    for (uint64_t v : m.value) (void)t.write(v);
  }
  if (!s.config.is_tail(s.self)) return;
  ++s.stats.acks;  // the tail: acknowledge without the value
  (void)t.write(AppHeader{out.client_ip, out.client_ctx, chain_len(false)}.word());
  for (uint64_t w : {m.service_time, m.sent_time, out.word()}) (void)t.write(w);
  write_tail(t, s.config.epoch, version, m);
}

void serve_write(Thread& t, const AppHeader& h, const ChainMessage& m, ChainReplicaState& s) {
  ++s.stats.writes;
  uint64_t version = m.version;
  if (m.meta.flags & kChainFromClient) {
    // Only the head gives versions: one order per key.
    if (!s.config.is_head(s.self)) {
      ++s.stats.refused;
      return refuse(t, h, m, s);
    }
    version = s.store.next_version(m.key);
  } else if (s.config.predecessor(s.self) != chain_node(h.ip, h.context) || version == 0) {
    // Only the predecessor of this configuration passes writes on: a head
    // the master has replaced must not give versions here.
    ++s.stats.not_predecessor;
    return;
  }
  if (s.store.write(m.key, version, m.value) == ChainStore::Write::kStale) ++s.stats.stale_writes;
  pass_on(t, m, version, s);
}

void serve_read(Thread& t, const AppHeader& h, const ChainMessage& m, ChainReplicaState& s) {
  ++s.stats.reads;
  // Only the tail holds only what was acknowledged (chain_answers_reads).
  if (!chain_answers_reads(s, t.now_ns())) {
    ++s.stats.refused;
    return refuse(t, h, m, s);
  }
  ChainMeta out = m.meta;
  out.flags = kChainRead;
  const ChainStore::Entry* e = s.store.read(m.key);
  if (e == nullptr) {
    ++s.stats.read_misses;
    out.flags |= kChainNotFound;
  }
  (void)t.write(AppHeader{out.client_ip, out.client_ctx, chain_len(e != nullptr)}.word());
  for (uint64_t w : {m.service_time, m.sent_time, out.word()}) (void)t.write(w);
  write_tail(t, s.config.epoch, e != nullptr ? e->version : 0, m);
  if (e != nullptr)
    for (uint64_t v : e->value) (void)t.write(v);
}

void serve_one(Thread& t, ChainReplicaState& s) {
  uint64_t words[kChainMaxWords];
  const AppHeader h = AppHeader::from_word(t.read());
  const uint32_t n = std::min<uint32_t>(h.payload_words(), kChainMaxWords);
  for (uint32_t i = 0; i < n; ++i) words[i] = t.read();
  ChainMessage m;
  switch (parse_chain_message(words, n, h.len, &m)) {
    case ChainParse::kTooShort:
      ++s.stats.dropped;
      return;
    case ChainParse::kBad: {
      ++s.stats.bad;
      ChainMeta bad = m.meta;
      bad.flags |= kChainBad;
      (void)t.write(AppHeader{h.ip, h.context, 24}.word());
      for (uint64_t w : {m.service_time, m.sent_time, bad.word()}) (void)t.write(w);
      return;
    }
    case ChainParse::kOk:
      break;
  }
  if (m.has_value) return serve_write(t, h, m, s);
  serve_read(t, h, m, s);
}

// The control thread's side of a join, as the joining tail's predecessor:
// everything it holds, in SYNC calls, then the last one once all were
// taken. A failed call starts it again, twice at most: a joiner that
// restarted refuses the first message its predecessor sends it if that
// host heard its previous run (docs/wire.md, dst_incarnation), and takes
// the next. After that the master sees the joiner not ready and takes it
// out after a while (chain_master.h), to try again later.
class SnapshotPush {
 public:
  void start(rpc::Client& c, ChainReplicaState& s) {
    attempts_ = 0;
    begin(c, s);
  }
  void completed(rpc::Client& c, const rpc::Completion& done, ChainReplicaState& s) {
    if (done.user != epoch_ || epoch_ != s.config.epoch || state_ == State::kIdle) return;  // a superseded join's
    --open_;
    if (done.status != rpc::CallStatus::kOk) state_ = State::kFailed;
    if (state_ == State::kFailed) {
      if (open_ == 0) {
        state_ = State::kIdle;
        if (++attempts_ < kAttempts) begin(c, s);
      }
    } else if (state_ == State::kLastSent) {
      state_ = State::kIdle;  // the joiner holds it all
    } else {
      send(c, s);
    }
  }

 private:
  enum class State : uint8_t { kIdle, kSending, kLastSent, kFailed };
  static constexpr int kAttempts = 3;

  void begin(rpc::Client& c, ChainReplicaState& s) {
    entries_ = s.store.snapshot();
    epoch_ = s.config.epoch;
    to_ = s.config.tail();
    next_ = 0;
    open_ = 0;
    state_ = State::kSending;
    send(c, s);
  }
  bool call(rpc::Client& c, const std::vector<uint64_t>& w) {
    uint64_t id = 0;
    if (c.call({chain_node_ip(to_), chain_control_context(chain_node_ctx(to_))}, w,
               static_cast<uint32_t>(w.size() * 8), std::chrono::milliseconds(20), epoch_, &id) != ApiError::kOk) {
      state_ = open_ == 0 ? State::kIdle : State::kFailed;
      return false;
    }
    ++open_;
    return true;
  }
  void send(rpc::Client& c, ChainReplicaState& s) {
    while (state_ == State::kSending && open_ < 4 && next_ < entries_.size()) {
      const size_t n = std::min<size_t>(kSyncBatch, entries_.size() - next_);
      std::vector<uint64_t> w = {kCtlSync, epoch_, n, 0};
      for (size_t i = next_; i < next_ + n; ++i) {
        const auto& [key, e] = entries_[i];
        w.insert(w.end(), {key[0], key[1], e.version});
        w.insert(w.end(), e.value.begin(), e.value.end());
      }
      if (!call(c, w)) return;
      s.stats.synced_out += n;
      next_ += n;
    }
    // Batches may be taken in any order; the last goes once all were.
    if (state_ == State::kSending && next_ == entries_.size() && open_ == 0 &&
        call(c, {kCtlSync, epoch_, 0, 1}))
      state_ = State::kLastSent;
  }

  std::vector<std::pair<ChainKey, ChainStore::Entry>> entries_;
  uint64_t epoch_ = 0, to_ = 0;
  size_t next_ = 0;
  int open_ = 0, attempts_ = 0;
  State state_ = State::kIdle;
};

void take_config(rpc::ServerCall& c, ChainReplicaState& s, rpc::Client& client, SnapshotPush& push) {
  std::vector<uint64_t> w(c.request_words() - 1);
  (void)c.read_words(w);
  const std::optional<ChainConfig> cfg =
      w.empty() ? std::nullopt : ChainConfig::from_words(std::span<const uint64_t>(w).subspan(1));
  if (cfg && w[0] == s.nonce && cfg->epoch > s.config.epoch) {
    ++s.stats.configs;
    // A joiner starts from its predecessor's snapshot: what it held (from
    // before it was taken out) may be older than writes it would not get.
    if (cfg->joining() == s.self) s.store.clear(), s.ready_epoch = 0;
    s.config = *cfg;
    if (s.config.joining() != 0 && s.config.successor(s.self) == s.config.joining()) push.start(client, s);
  }
  (void)c.reply(8);
  (void)c.write(s.config.epoch);
}

void take_sync(rpc::ServerCall& c, ChainReplicaState& s) {
  uint64_t head[kSyncHeadWords] = {};
  const uint32_t words = c.request_words();
  if (words < 1 + kSyncHeadWords || c.read_words(head) != ApiError::kOk || head[0] != s.config.epoch ||
      s.config.joining() != s.self || (words - 1 - kSyncHeadWords) != head[1] * kSyncEntryWords || head[2] > 1 ||
      s.config.predecessor(s.self) != chain_node(c.from().ip, static_cast<uint16_t>(c.from().context - 1))) {
    (void)c.fail();  // another epoch's, or not from its predecessor
    return;
  }
  std::vector<uint64_t> e(kSyncEntryWords);
  for (uint64_t i = 0; i < head[1]; ++i) {
    (void)c.read_words(e);
    ChainValue v;
    std::copy(e.begin() + 3, e.end(), v.begin());
    (void)s.store.write({e[0], e[1]}, e[2], v);  // a newer write passed on meanwhile stays
    ++s.stats.synced_in;
  }
  if (head[2] == 1) s.ready_epoch = head[0];
  (void)c.reply(8);
  (void)c.write(head[1]);
}

// The lease runs from the ping's send time where that is on this host's
// clock (one machine, a simulation's one modelled clock): a ping delivered
// late — held by a partition — renews no more than it could have on time.
// A send time this clock cannot have seen (another machine's) counts from
// the receipt: the delay is then assumed short (docs/apps.md).
void renew_lease(const Thread& t, uint64_t sent_at, ChainReplicaState& s) {
  const uint64_t now = t.now_ns();
  const bool same_clock = sent_at <= now && now - sent_at < 1'000'000'000;
  s.lease_until_ns = std::max(s.lease_until_ns, (same_clock ? sent_at : now) + s.lease_ns);
}

}  // namespace

bool serve_chain(Thread& t, uint16_t context, uint8_t priority, ChainReplicaState* s) {
  if (!bind_service(t, context, priority, "chain")) return false;
  while (t.wait()) {
    serve_one(t, *s);
    t.msg_done();
  }
  return true;
}

bool chain_answers_reads(const ChainReplicaState& s, uint64_t now_ns) {
  return s.config.is_tail(s.self) && (!s.config.pending || s.ready_epoch == s.config.epoch) &&
         (s.lease_ns == 0 || now_ns <= s.lease_until_ns);
}

bool serve_chain_control(Thread& t, uint16_t data_context, ChainReplicaState* s) {
  if (!t.bind(chain_control_context(data_context)).ok()) return false;
  // The modelled clock differs from one start to the next as much as a
  // real one does: a nonce that replays in a simulation and still changes
  // on a restart.
  s->nonce = (t.now_ns() * 0x9e3779b97f4a7c15ull ^ s->self) | 1;
  rpc::Client client(t);  // SYNC calls to a joiner
  SnapshotPush push;
  rpc::serve_calls(
      t,
      [&](rpc::ServerCall& c) {
        switch (c.request_words() == 0 ? 0 : c.read()) {
          case kCtlConfig: return take_config(c, *s, client, push);
          case kCtlSync: return take_sync(c, *s);
          case kCtlPing: {
            const uint64_t sent_at = c.read(), epoch = c.read();
            if (chain_node(c.from().ip, c.from().context) == s->master && epoch == s->config.epoch)
              renew_lease(t, sent_at, *s);
            (void)c.reply(32);
            for (uint64_t w : {s->config.epoch, s->ready_epoch, static_cast<uint64_t>(s->store.size()), s->nonce})
              (void)c.write(w);
            return;
          }
          default: (void)c.fail();
        }
      },
      [&](rpc::Client& from, rpc::Completion& done) { push.completed(from, done, *s); });
  return true;
}

}  // namespace nanopu::apps
