// kv-client: load on kv-server, every reply checked, written against the
// installed library only: a CallLoad (nanopu/loadgen.h) says what each
// request is and whether its reply is right; client_program
// (nanopu/loadgen_main.h) makes it a program with open and closed loop, the
// histogram, JSON, the modelled column and the exit status, live and on the
// modelled clock. Its state is its own (State, made per host): a simulation
// runs several clients in one process.
//
// The client keeps a model of the store: what it last wrote to each key. A
// key has at most one request in flight, so every reply has one right
// answer. A key starts unknown (the server may hold an earlier client's
// values); a call that fails (no reply by its deadline, given up, refused)
// is reported by id on stderr and leaves its key unknown; a failure that
// says the server restarted (kRefused, kPeerRestarted) leaves every key
// unknown, since a restarted server starts empty. An unknown key accepts
// what the server says, if the value is well-formed, and is known again.
// Clients of one server keep to key ranges of their own (--first_key), so
// each one's reference is the truth for its keys. Every call is recorded
// in a history when one is asked for (--history): GET a read of the key's
// version, PUT a write of its version, DELETE a write of null.
#include <cstdint>
#include <cstdio>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "absl/flags/flag.h"
#include "kv_protocol.h"
#include "kv_programs.h"
#include "nanopu/loadgen_main.h"
#include "nanopu/seeded_draw.h"

ABSL_FLAG(uint64_t, keys, 1000, "Keys the requests spread over (more than twice the requests in flight).");
ABSL_FLAG(uint64_t, first_key, 1,
          "The first of the client's keys (--first_key .. --first_key + --keys - 1): clients of one server "
          "keep to ranges of their own.");
ABSL_FLAG(uint32_t, max_value, 1024, "PUT values are 8..max_value bytes, each length as likely.");
ABSL_FLAG(double, put_fraction, 0.3, "Share of PUTs; the rest are GETs, DELETEs and bad requests.");
ABSL_FLAG(double, delete_fraction, 0.05, "Share of DELETEs.");
ABSL_FLAG(double, bad_fraction, 0.01, "Share of malformed requests (an unknown op): each must get BAD_REQUEST.");

namespace {

using nanopu::rpc::CallStatus;

struct Mix {
  uint64_t keys = 1000, first_key = 1;
  uint32_t max_value = 1024;
  double put = 0.3, del = 0.05, bad = 0.01;
};

struct Tally {
  uint64_t gets = 0, found = 0, puts = 0, deletes = 0, bad_refused = 0, failed = 0, wrong = 0;
};

// One client's own: its flags, read when it is made, and its counts.
struct State {
  Mix mix;
  Tally tally;
};
constexpr uint64_t kWrongLinesShown = 10;  // then only counted

// Word i of version `version` of key's value. The first names the key and
// the version (values are at least 8 bytes), the others follow from them,
// so any value read back is checked whole, even one this client did not
// see written (a key left unknown by a failed call, or a previous client's).
uint64_t value_word(uint64_t key, uint32_t version, uint32_t i) {
  if (i == 0) return key << 32 | version;
  uint64_t x = key * 0x9e3779b97f4a7c15ull ^ (uint64_t{version} << 32 | i);
  x ^= x >> 31;
  x *= 0xbf58476d1ce4e5b9ull;
  return x ^ (x >> 29);
}

class KvLoad : public nanopu::loadgen::CallLoad {
 public:
  KvLoad(nanopu::Thread& t, const nanopu::loadgen::Options& o, nanopu::loadgen::Result* r, State& s)
      : CallLoad(t, o, r), s_(s), mix_(s.mix), tally_(s.tally), rng_(o.seed) {}

 private:
  struct Entry {
    bool known = false;    // until a reply says: the server may hold a previous client's values
    bool present = false;
    uint32_t version = 0;  // of the value last written
    uint32_t bytes = 0;
  };
  struct Pending {
    kv::Op op = kv::Op::kGet;  // or an unknown op: a malformed request
    uint64_t key = 0;
    uint32_t version = 0, bytes = 0;  // PUT: what it writes
  };

  uint64_t free_key() {

    for (;;)
      if (const uint64_t k = rng_.int_between(mix_.first_key, mix_.first_key + mix_.keys - 1); !busy_.contains(k)) return k;
  }
  kv::Op draw_op() {
    const double x = rng_.unit();
    if (x < mix_.bad) return static_cast<kv::Op>(0x7f);
    if (x < mix_.bad + mix_.del) return kv::Op::kDelete;
    if (x < mix_.bad + mix_.del + mix_.put) return kv::Op::kPut;
    return kv::Op::kGet;
  }

  uint32_t request(uint64_t seq, std::vector<uint64_t>* words) override {
    Pending p{draw_op(), free_key()};
    busy_.insert(p.key);
    uint32_t value_bytes = 0;
    if (p.op == kv::Op::kPut) {
      p.version = ++next_version_;
      p.bytes = static_cast<uint32_t>(rng_.int_between(8, mix_.max_value));
      value_bytes = p.bytes;
    }
    words->assign({kv::head_word(static_cast<uint8_t>(p.op), value_bytes), p.key});
    for (uint32_t i = 0; i < kv::words_for(value_bytes); ++i) words->push_back(value_word(p.key, p.version, i));
    pending_[seq] = p;
    return kv::kRequestHeadBytes + value_bytes;
  }

  // A GET's value is version `version` of key's: its length and every byte.
  // Messages are as long as their header says, in bytes, and words travel
  // most significant byte first (docs/wire.md): of a last, partial word only
  // its bytes % 8 high-order bytes arrive, the rest read as zero.
  static bool is_version(uint64_t key, uint32_t version, std::span<const uint64_t> value, uint32_t bytes) {
    if (value.empty() || value.size() != kv::words_for(bytes)) return false;
    const uint64_t last_mask = bytes % 8 == 0 ? ~uint64_t{0} : ~uint64_t{0} << (8 * (8 - bytes % 8));
    for (uint32_t i = 0; i < value.size(); ++i) {
      const uint64_t mask = i + 1 == value.size() ? last_mask : ~uint64_t{0};
      if ((value[i] & mask) != (value_word(key, version, i) & mask)) return false;
    }
    return true;
  }

  bool check_get(const Pending& p, Entry& e, kv::Status s, std::span<const uint64_t> value, uint32_t bytes) {
    ++tally_.gets;
    if (s == kv::Status::kNotFound) {
      if (e.known && e.present) return false;
      e = Entry{true, false, 0, 0};
      return bytes == 0;
    }
    if (s != kv::Status::kOk) return false;
    ++tally_.found;
    if (e.known) return e.present && bytes == e.bytes && is_version(p.key, e.version, value, bytes);
    // Unknown: any well-formed value of this key; its first word names the version.
    if (value.empty() || value[0] >> 32 != p.key) return false;
    const auto version = static_cast<uint32_t>(value[0]);
    if (!is_version(p.key, version, value, bytes)) return false;
    e = Entry{true, true, version, bytes};
    return true;
  }

  bool check(uint64_t seq, std::span<const uint64_t> reply, uint32_t reply_bytes) override {
    auto it = pending_.find(seq);
    if (it == pending_.end() || reply.empty() || reply_bytes < kv::kReplyHeadBytes) return false;
    const Pending p = it->second;
    pending_.erase(it);
    busy_.erase(p.key);
    Entry& e = store_[p.key];
    const auto s = static_cast<kv::Status>(kv::kind_of(reply[0]));
    const uint32_t bytes = kv::value_bytes_of(reply[0]);
    bool ok = false;
    switch (p.op) {
      case kv::Op::kGet:
        ok = bytes + kv::kReplyHeadBytes == reply_bytes && check_get(p, e, s, reply.subspan(1), bytes);
        break;
      case kv::Op::kPut:
        ++tally_.puts;
        ok = s == kv::Status::kOk;
        if (ok) e = Entry{true, true, p.version, p.bytes};
        break;
      case kv::Op::kDelete:
        ++tally_.deletes;
        ok = s == kv::Status::kOk ? !(e.known && !e.present) : s == kv::Status::kNotFound && !(e.known && e.present);
        if (ok) e = Entry{true, false, 0, 0};
        break;
      default:
        ok = s == kv::Status::kBadRequest;
        tally_.bad_refused += ok;
        break;
    }
    if (!ok && ++tally_.wrong <= kWrongLinesShown) {
      std::fprintf(stderr, "kv-client: request %llu (op %u, key %llu): wrong reply %s, %u bytes\n",
                   static_cast<unsigned long long>(seq), static_cast<unsigned>(p.op),
                   static_cast<unsigned long long>(p.key), std::string(kv::status_name(s)).c_str(), bytes);
    }
    return ok;
  }

  // The history: GET reads the key's version (null: not found), PUT writes
  // its version, DELETE writes null; a malformed request is not recorded.
  nanopu::rpc::CallRecorder recorder() override {
    nanopu::rpc::CallRecorder r;
    r.invoke = [](std::span<const uint64_t> w, uint32_t) -> std::optional<nanopu::HistoryOp> {
      const auto key = static_cast<int64_t>(w[1]);
      switch (static_cast<kv::Op>(kv::kind_of(w[0]))) {
        case kv::Op::kGet: return nanopu::HistoryOp{"read", key, nanopu::HistoryValue::null()};
        case kv::Op::kPut:
          return nanopu::HistoryOp{"write", key, nanopu::HistoryValue::of(static_cast<uint32_t>(w[2]))};
        case kv::Op::kDelete: return nanopu::HistoryOp{"write", key, nanopu::HistoryValue::null()};
      }
      return std::nullopt;
    };
    r.ok = [](const nanopu::HistoryOp& op, std::span<const uint64_t> reply, uint32_t) {
      const auto s = static_cast<kv::Status>(kv::kind_of(reply[0]));
      if (op.f == "write") return nanopu::HistoryOutcome{nanopu::HistoryType::kOk, op.value};
      if (s == kv::Status::kNotFound) return nanopu::HistoryOutcome{nanopu::HistoryType::kOk, nanopu::HistoryValue::null()};
      if (s != kv::Status::kOk || reply.size() < 2) return nanopu::HistoryOutcome{nanopu::HistoryType::kFail, {}};
      return nanopu::HistoryOutcome{nanopu::HistoryType::kOk, nanopu::HistoryValue::of(static_cast<uint32_t>(reply[1]))};
    };
    return r;
  }

  void failed(uint64_t seq, uint64_t call_id, CallStatus status) override {
    auto it = pending_.find(seq);
    if (it == pending_.end()) return;
    const Pending p = it->second;
    pending_.erase(it);
    busy_.erase(p.key);
    ++tally_.failed;
    std::fprintf(stderr, "kv-client: call %llu (request %llu, op %u, key %llu): %s\n",
                 static_cast<unsigned long long>(call_id), static_cast<unsigned long long>(seq),
                 static_cast<unsigned>(p.op), static_cast<unsigned long long>(p.key),
                 std::string(nanopu::rpc::call_status_name(status)).c_str());
    store_[p.key].known = false;
    if (status == CallStatus::kRefused || status == CallStatus::kPeerRestarted)
      for (auto& [key, e] : store_) e.known = false;  // a restarted server starts empty
  }

  State& s_;
  const Mix& mix_;
  Tally& tally_;
  nanopu::SeededDraw rng_;  // nanopu/seeded_draw.h: a seed is one run with any standard library
  uint32_t next_version_ = 0;
  std::unordered_map<uint64_t, Pending> pending_;  // by request number
  std::unordered_set<uint64_t> busy_;              // keys with a request in flight
  std::unordered_map<uint64_t, Entry> store_;      // what the server holds, as far as known
};

// The client's flags, checked against the load's; "" or the bad one named.
std::string configure(Mix* m, nanopu::loadgen::Options* o) {
  *m = {absl::GetFlag(FLAGS_keys), absl::GetFlag(FLAGS_first_key), absl::GetFlag(FLAGS_max_value),
        absl::GetFlag(FLAGS_put_fraction), absl::GetFlag(FLAGS_delete_fraction), absl::GetFlag(FLAGS_bad_fraction)};
  const uint64_t in_flight = o->rate > 0 ? 64 : o->outstanding;
  if (m->keys < 2 * in_flight || m->keys > 0xffffffff)
    return "--keys must be at least twice the requests in flight, and below 2^32";
  if (m->first_key == 0 || m->first_key + m->keys > (uint64_t{1} << 32))
    return "--first_key must be >= 1, and --first_key + --keys at most 2^32";
  if (m->max_value < 8 || m->max_value > nanopu::rpc::kMaxCallBytes - kv::kRequestHeadBytes)
    return "--max_value must be 8.." + std::to_string(nanopu::rpc::kMaxCallBytes - kv::kRequestHeadBytes);
  if (m->put < 0 || m->del < 0 || m->bad < 0 || m->put + m->del + m->bad > 1)
    return "--put_fraction, --delete_fraction and --bad_fraction must be >= 0 and add up to at most 1";
  o->msg_bytes = kv::kRequestHeadBytes + 8;
  return "";
}

}  // namespace

nanopu::ProgramSpec kv_client_program() {
  nanopu::ProgramSpec s = nanopu::loadgen::client_program(
      "kv-client", "GET, PUT and DELETE load on kv-server, every reply checked against what this client wrote",
      [](const nanopu::ProgramArgs&) -> absl::StatusOr<nanopu::loadgen::ClientProgram> {
        auto state = std::make_shared<State>();  // this host's own
        nanopu::loadgen::ClientProgram p;
        p.name = "kv-client";
        p.what = "key-value calls";
        p.configure = [state](const nanopu::Config&, nanopu::loadgen::Options* o) {
          return configure(&state->mix, o);
        };
        p.make_load = [state](nanopu::Thread& t, const nanopu::loadgen::Options& o, nanopu::loadgen::Result* r) {
          return std::make_unique<KvLoad>(t, o, r, *state);
        };
        // For the modelled column when replies carry no server core time: a
        // hash-table lookup's work (about 100 ns) per request, values of the mean size.
        p.declared = [state] {
          const Mix& m = state->mix;
          const uint32_t mean_value = (8 + m.max_value) / 2;
          return std::vector<nanopu::loadgen::DeclaredKind>{
              {1 - m.put - m.del - m.bad, 24, 16 + mean_value, 100}, {m.put, 24 + mean_value, 16, 100},
              {m.del + m.bad, 24, 16, 100}};
        };
        p.summary = [state] {
          const Tally& n = state->tally;
          return "  kv: " + std::to_string(n.gets) + " GETs (" + std::to_string(n.found) + " found), " +
                 std::to_string(n.puts) + " PUTs, " + std::to_string(n.deletes) + " DELETEs, " +
                 std::to_string(n.bad_refused) + " malformed requests refused, " + std::to_string(n.failed) +
                 " calls failed (each reported by id), " + std::to_string(n.wrong) + " wrong replies";
        };
        return p;
      });
  s.flags = {"keys", "first_key", "max_value", "put_fraction", "delete_fraction", "bad_fraction"};
  return s;
}
