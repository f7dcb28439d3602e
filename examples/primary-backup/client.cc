// The primary-backup store's client: WRITEs and READs of a few shared keys
// on the primary, several in flight, every call recorded in the history
// (--history; in a simulation, every client's in one) for a
// linearizability check. Its own check of each reply: a WRITE is OK, a READ
// is NOT_FOUND or a value some client wrote to that key (values carry their
// key, their writer and a count: unique, so a history names each write).
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "absl/flags/flag.h"
#include "nanopu/loadgen_main.h"
#include "nanopu/seeded_draw.h"
#include "pb_protocol.h"
#include "replicas.h"

ABSL_FLAG(uint32_t, keys, 4, "Keys the calls spread over (every client shares them: writers race).");
ABSL_FLAG(double, write_fraction, 0.5, "Share of WRITEs; the rest are READs.");
ABSL_FLAG(uint32_t, writer_id, 0, "This client's part of the values it writes (0: from its --seed), below 2^20.");

namespace pb {
namespace {

constexpr int kCountBits = 20, kWriterBits = 20;

int64_t value_of(uint32_t key, uint32_t writer, uint32_t count) {
  return static_cast<int64_t>(uint64_t{key} << (kCountBits + kWriterBits) | uint64_t{writer} << kCountBits | count);
}
uint64_t key_of_value(int64_t v) { return static_cast<uint64_t>(v) >> (kCountBits + kWriterBits); }

struct Settings {
  uint32_t keys = 4, writer = 1;
  double write_fraction = 0.5;
};
struct Tally {
  uint64_t writes = 0, reads = 0, found = 0, failed = 0, wrong = 0;
};
struct State {
  Settings s;
  Tally n;
};

class PbLoad final : public nanopu::loadgen::CallLoad {
 public:
  PbLoad(nanopu::Thread& t, const nanopu::loadgen::Options& o, nanopu::loadgen::Result* r, State& st)
      : CallLoad(t, o, r), s_(st.s), n_(st.n), rng_(o.seed) {}

 private:
  struct Call {
    bool write = false;
    uint32_t key = 0;
  };

  uint32_t request(uint64_t seq, std::vector<uint64_t>* words) override {
    const Call c{rng_.chance(s_.write_fraction), static_cast<uint32_t>(rng_.below(s_.keys))};
    calls_[seq] = c;
    if (!c.write) {
      words->assign({head(static_cast<uint8_t>(Op::kRead)), c.key});
      return kReadBytes;
    }
    const int64_t v = value_of(c.key, s_.writer, ++count_ & ((1u << kCountBits) - 1));
    words->assign({head(static_cast<uint8_t>(Op::kWrite)), c.key, static_cast<uint64_t>(v)});
    return kWriteBytes;
  }

  bool check(uint64_t seq, std::span<const uint64_t> reply, uint32_t bytes) override {
    auto it = calls_.find(seq);
    if (it == calls_.end() || reply.empty()) return false;
    const Call c = it->second;
    calls_.erase(it);
    const auto status = static_cast<Status>(kind_of(reply[0]));
    bool ok = false;
    if (c.write) {
      ++n_.writes;
      ok = bytes == 8 && status == Status::kOk;
    } else {
      ++n_.reads;
      n_.found += status == Status::kOk;
      ok = (bytes == 8 && status == Status::kNotFound) ||
           (bytes == 16 && status == Status::kOk && key_of_value(static_cast<int64_t>(reply[1])) == c.key);
    }
    n_.wrong += !ok;
    return ok;
  }

  void failed(uint64_t seq, uint64_t, nanopu::rpc::CallStatus) override {
    calls_.erase(seq);
    ++n_.failed;
  }

  // WRITE: a write of its value; READ: a read, its value from the reply
  // (null: NOT_FOUND).
  nanopu::rpc::CallRecorder recorder() override {
    nanopu::rpc::CallRecorder r;
    r.invoke = [](std::span<const uint64_t> w, uint32_t) -> std::optional<nanopu::HistoryOp> {
      const auto key = static_cast<int64_t>(w[1]);
      if (kind_of(w[0]) == static_cast<uint8_t>(Op::kWrite))
        return nanopu::HistoryOp{"write", key, nanopu::HistoryValue::of(static_cast<int64_t>(w[2]))};
      return nanopu::HistoryOp{"read", key, nanopu::HistoryValue::null()};
    };
    r.ok = [](const nanopu::HistoryOp& op, std::span<const uint64_t> reply, uint32_t bytes) {
      const auto status = static_cast<Status>(kind_of(reply.empty() ? 0 : reply[0]));
      if (op.f == "write")
        return nanopu::HistoryOutcome{status == Status::kOk ? nanopu::HistoryType::kOk : nanopu::HistoryType::kFail,
                                      op.value};
      if (status == Status::kNotFound) return nanopu::HistoryOutcome{nanopu::HistoryType::kOk, nanopu::HistoryValue::null()};
      if (status != Status::kOk || bytes != 16) return nanopu::HistoryOutcome{nanopu::HistoryType::kFail, {}};
      return nanopu::HistoryOutcome{nanopu::HistoryType::kOk, nanopu::HistoryValue::of(static_cast<int64_t>(reply[1]))};
    };
    return r;
  }

  const Settings& s_;
  Tally& n_;
  nanopu::SeededDraw rng_;  // nanopu/seeded_draw.h: a seed is one run with any standard library
  uint32_t count_ = 0;
  std::unordered_map<uint64_t, Call> calls_;  // by request number
};

}  // namespace

nanopu::ProgramSpec client_program() {
  nanopu::ProgramSpec s = nanopu::loadgen::client_program(
      "client", "WRITEs and READs of shared keys on the primary, each reply checked, each call in the history",
      [](const nanopu::ProgramArgs& a) -> absl::StatusOr<nanopu::loadgen::ClientProgram> {
        auto st = std::make_shared<State>();
        st->s.keys = absl::GetFlag(FLAGS_keys);
        st->s.write_fraction = absl::GetFlag(FLAGS_write_fraction);
        st->s.writer = absl::GetFlag(FLAGS_writer_id);
        if (st->s.writer == 0) st->s.writer = static_cast<uint32_t>(1 + a.seed % ((1u << kWriterBits) - 1));
        if (st->s.keys == 0 || st->s.keys >= (1u << 20)) return absl::InvalidArgumentError("--keys: 1..2^20-1");
        if (!(st->s.write_fraction >= 0 && st->s.write_fraction <= 1))
          return absl::InvalidArgumentError("--write_fraction: 0..1");
        if (st->s.writer >= (1u << kWriterBits)) return absl::InvalidArgumentError("--writer_id: below 2^20");
        nanopu::loadgen::ClientProgram p;
        p.name = "client";
        p.what = "primary-backup calls";
        p.make_load = [st](nanopu::Thread& t, const nanopu::loadgen::Options& o, nanopu::loadgen::Result* r) {
          return std::make_unique<PbLoad>(t, o, r, *st);
        };
        p.summary = [st] {
          const Tally& n = st->n;
          return "  pb: " + std::to_string(n.writes) + " WRITEs, " + std::to_string(n.reads) + " READs (" +
                 std::to_string(n.found) + " found), " + std::to_string(n.failed) + " calls failed, " +
                 std::to_string(n.wrong) + " wrong replies";
        };
        return p;
      });
  s.flags = {"keys", "write_fraction", "writer_id"};
  return s;
}

}  // namespace pb
