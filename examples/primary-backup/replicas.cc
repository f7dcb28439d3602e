// The primary and the backup (replicas.h), written against the installed
// nanopu library only.
#include "replicas.h"

#include <cstdio>
#include <algorithm>
#include <cstdlib>
#include <span>
#include <optional>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "nanopu/address.h"
#include "nanopu/probe.h"
#include "nanopu/program_flags.h"
#include "pb_protocol.h"

ABSL_FLAG(std::string, backup, "10.0.0.3:2", "The primary's backup, IP:CONTEXT.");
ABSL_FLAG(uint32_t, replicate_timeout_us, 1000,
          "The primary waits this long for the backup to take a write before it sends it again.");
ABSL_FLAG(uint32_t, replicate_attempts, 50,
          "The primary sends a write to the backup at most this many times; then its client's call "
          "fails (kServerFailed: the write is on the primary, perhaps not on the backup).");

namespace pb {
namespace {

std::optional<nanopu::rpc::Peer> parse_peer(const std::string& text) {
  const size_t colon = text.rfind(':');
  if (colon == std::string::npos) return std::nullopt;
  const std::optional<uint32_t> ip = nanopu::parse_ipv4(text.substr(0, colon));
  char* end = nullptr;
  const unsigned long ctx = std::strtoul(text.c_str() + colon + 1, &end, 10);
  if (!ip || end == text.c_str() + colon + 1 || *end != '\0' || ctx == 0 || ctx > 0xffff) return std::nullopt;
  return nanopu::rpc::Peer{*ip, static_cast<uint16_t>(ctx)};
}

// To a call being served (rpc::ServerCall) or one answered later
// (rpc::DeferredReply): both answer the same way.
template <typename Call>
void reply(Call& c, Status s) {
  (void)c.reply(8);
  (void)c.write(head(static_cast<uint8_t>(s)));
}

}  // namespace

absl::StatusOr<std::unique_ptr<nanopu::Program>> Primary::make(const nanopu::ProgramArgs& a) {
  auto p = std::make_unique<Primary>();
  const std::optional<nanopu::rpc::Peer> backup = parse_peer(absl::GetFlag(FLAGS_backup));
  if (!backup) return absl::InvalidArgumentError("--backup='" + absl::GetFlag(FLAGS_backup) + "': expected IP:CONTEXT");
  if (absl::GetFlag(FLAGS_context) == 0 || absl::GetFlag(FLAGS_context) > 0xffff)
    return absl::InvalidArgumentError("--context: 1..65535");
  if (absl::GetFlag(FLAGS_replicate_timeout_us) == 0 || absl::GetFlag(FLAGS_replicate_attempts) == 0)
    return absl::InvalidArgumentError("--replicate_timeout_us and --replicate_attempts must be > 0");
  p->backup_ = *backup;
  p->context_ = static_cast<uint16_t>(absl::GetFlag(FLAGS_context));
  p->timeout_ = std::chrono::microseconds(absl::GetFlag(FLAGS_replicate_timeout_us));
  p->max_attempts_ = absl::GetFlag(FLAGS_replicate_attempts);
  p->stats_ = absl::GetFlag(FLAGS_stats);
  (void)a;  // the primary keeps nothing on disk: its backup is its durability
  return p;
}

absl::Status Primary::spawn(nanopu::Runtime& rt) {
  return rt.spawn([this](nanopu::Thread& t) { serve(t); }).status();
}

void Primary::serve(nanopu::Thread& t) {
  if (absl::Status s = t.bind(context_); !s.ok()) {
    std::fprintf(stderr, "primary: %s\n", std::string(s.message()).c_str());
    return;
  }
  nanopu::rpc::Client to_backup(t);  // on the serving thread: calls made before replying
  ask_snapshot(to_backup);
  nanopu::rpc::serve_calls(
      t, [&](nanopu::rpc::ServerCall& c) { handle(to_backup, c); },
      [&](nanopu::rpc::Client& from, nanopu::rpc::Completion& done) { completed(from, done); });
}

void Primary::ask_snapshot(nanopu::rpc::Client& to_backup) {
  const uint64_t w = head(static_cast<uint8_t>(Op::kSnapshot));
  while (to_backup.call(backup_, std::span<const uint64_t>(&w, 1), kSnapshotBytes, timeout_, 0, &snapshot_call_) !=
         nanopu::ApiError::kOk)
    if (to_backup.thread().stopping()) return;
}

void Primary::take_snapshot(nanopu::rpc::Client& to_backup, const nanopu::rpc::Completion& done) {
  snapshot_call_ = 0;
  const std::span<const uint64_t> r = done.reply;
  const uint64_t n = r.size() >= 2 ? r[1] : 0;
  if (done.status != nanopu::rpc::CallStatus::kOk || r.size() < 2 || kind_of(r[0]) != 0 || r.size() != 2 + 3 * n) {
    nanopu::probe("pb.primary.snapshot_again");  // the backup is down, cut off, or restarting: ask again
    return ask_snapshot(to_backup);
  }
  for (uint64_t i = 0; i < n; ++i) {
    const auto key = static_cast<int64_t>(r[2 + 3 * i]);
    store_[key] = Entry{static_cast<int64_t>(r[3 + 3 * i]), r[4 + 3 * i]};
    next_seq_ = std::max(next_seq_, r[4 + 3 * i]);
  }
  if (n != 0) nanopu::probe("pb.primary.recovered_keys");
  recovered_ = true;
  std::vector<Held> held = std::move(held_);
  held_.clear();
  for (Held& h : held) {
    if (h.q.op == Op::kWrite) write(to_backup, std::move(h.reply), h.q);
    else answer(h.reply, h.q);
  }
}

Primary::Request Primary::parse(nanopu::rpc::ServerCall& c) {
  Request q;
  const uint64_t w0 = c.request_bytes() >= 16 ? c.read() : 0;
  q.key = static_cast<int64_t>(c.read());
  if (kind_of(w0) == static_cast<uint8_t>(Op::kRead) && c.request_bytes() == kReadBytes) q.op = Op::kRead;
  if (kind_of(w0) == static_cast<uint8_t>(Op::kWrite) && c.request_bytes() == kWriteBytes) {
    q.op = Op::kWrite;
    q.value = static_cast<int64_t>(c.read());
  }
  return q;
}

void Primary::handle(nanopu::rpc::Client& to_backup, nanopu::rpc::ServerCall& c) {
  const Request q = parse(c);
  if (!recovered_) {  // its backup's keys not in yet: held, answered once they are
    nanopu::probe("pb.primary.held_while_recovering");
    ++held_total_;
    held_.push_back(Held{q, c.defer()});
    return;
  }
  if (q.op == Op::kWrite) return write(to_backup, c.defer(), q);
  answer(c, q);
}

template <typename Call>
void Primary::answer(Call& c, const Request& q) {
  if (q.op != Op::kRead) {
    ++bad_;
    return reply(c, Status::kBadRequest);
  }
  ++reads_;
  auto it = store_.find(q.key);
  if (it == store_.end()) return reply(c, Status::kNotFound);
  (void)c.reply(16);
  (void)c.write(head(static_cast<uint8_t>(Status::kOk)));
  (void)c.write(static_cast<uint64_t>(it->second.value));
}

void Primary::write(nanopu::rpc::Client& to_backup, nanopu::rpc::DeferredReply c, const Request& q) {
  ++writes_;
  const uint64_t seq = ++next_seq_;
#ifdef PB_PLANTED_BUG
  // The planted bug: the write is seen and the client hears OK now, the
  // backup later, eight writes at a time. A crash before they go loses them.
  store_[q.key] = Entry{q.value, seq};
  acked_[q.key] = seq;
  reply(c, Status::kOk);
  unsent_.push_back(Replication{{}, q.key, q.value, seq, 0});
  if (unsent_.size() < 8) return;
  for (Replication& r : unsent_) replicate(to_backup, std::move(r));
  unsent_.clear();
#else
  replicate(to_backup, Replication{std::move(c), q.key, q.value, seq, 0});
#endif
}

void Primary::replicate(nanopu::rpc::Client& to_backup, Replication r) {
  for (;;) {
    if (++r.attempts > max_attempts_) {
      ++gave_up_;
      nanopu::probe("pb.primary.gave_up_on_backup");
      if (r.reply.pending()) (void)r.reply.fail();  // the client hears it may be on the primary only
      return;
    }
    const uint64_t words[4] = {head(static_cast<uint8_t>(Op::kReplicate)), static_cast<uint64_t>(r.key),
                               static_cast<uint64_t>(r.value), r.seq};
    uint64_t id = 0;
    if (to_backup.call(backup_, words, kReplicateBytes, timeout_, 0, &id) == nanopu::ApiError::kOk) {
      in_flight_.emplace(id, std::move(r));
      return;
    }
    ++retries_;  // no buffer this instant: try again
  }
}

void Primary::completed(nanopu::rpc::Client& to_backup, const nanopu::rpc::Completion& done) {
  if (done.id == snapshot_call_) return take_snapshot(to_backup, done);
  auto it = in_flight_.find(done.id);
  if (it == in_flight_.end()) return;
  Replication r = std::move(it->second);
  in_flight_.erase(it);
  if (done.status != nanopu::rpc::CallStatus::kOk) {  // lost, or the backup restarted: again
    ++retries_;
    nanopu::probe("pb.primary.replicated_again");
    return replicate(to_backup, std::move(r));
  }
  if (!r.reply.pending()) return;  // answered before (the planted bug)
  // Seen only now that the backup has it: a READ that saw it sooner could
  // see it vanish, were this primary to crash and come back from its backup.
  Entry& e = store_[r.key];
  if (r.seq > e.seq) e = Entry{r.value, r.seq};
  uint64_t& acked = acked_[r.key];
  if (r.seq > acked) acked = r.seq;
  (void)r.reply.reply(8);
  (void)r.reply.write(head(static_cast<uint8_t>(Status::kOk)));
}

std::string Primary::banner() const {
  return "primary: serving context " + std::to_string(context_) + ", backup " + nanopu::format_ipv4(backup_.ip) +
         ":" + std::to_string(backup_.context) + " (its keys asked for before the first call is served)";
}

int Primary::report(nanopu::Runtime&, FILE*) {
  if (stats_)
    std::fprintf(stderr, "  primary.writes %llu\n  primary.reads %llu\n  primary.retries %llu\n  primary.gave_up %llu\n"
                 "  primary.bad_requests %llu\n  primary.held_while_recovering %llu\n",
                 static_cast<unsigned long long>(writes_), static_cast<unsigned long long>(reads_),
                 static_cast<unsigned long long>(retries_), static_cast<unsigned long long>(gave_up_),
                 static_cast<unsigned long long>(bad_), static_cast<unsigned long long>(held_total_));
  return 0;
}

absl::StatusOr<std::unique_ptr<nanopu::Program>> Backup::make(const nanopu::ProgramArgs& a) {
  auto b = std::make_unique<Backup>();
  if (absl::GetFlag(FLAGS_context) == 0 || absl::GetFlag(FLAGS_context) > 0xffff)
    return absl::InvalidArgumentError("--context: 1..65535");
  b->context_ = static_cast<uint16_t>(absl::GetFlag(FLAGS_context));
  b->stats_ = absl::GetFlag(FLAGS_stats);
  uint64_t max_seq = 0;
  const std::string path = a.state_dir + "/backup.log";
  if (!b->log_.open(path, &b->store_, &max_seq)) return absl::InvalidArgumentError("cannot write " + path + " (--state_dir)");
  return b;
}

absl::Status Backup::spawn(nanopu::Runtime& rt) {
  return rt
      .spawn([this](nanopu::Thread& t) {
        (void)nanopu::rpc::serve_calls(t, context_, 0, [this](nanopu::rpc::ServerCall& c) {
          uint64_t w[4] = {};
          if (c.request_bytes() == kSnapshotBytes) {
            w[0] = c.read();
            if (kind_of(w[0]) == static_cast<uint8_t>(Op::kSnapshot)) return snapshot(c);
          }
          if (c.request_bytes() != kReplicateBytes || c.read_words(w) != nanopu::ApiError::kOk ||
              kind_of(w[0]) != static_cast<uint8_t>(Op::kReplicate)) {
            ++bad_;
            return reply(c, Status::kBadRequest);
          }
          const auto key = static_cast<int64_t>(w[1]), value = static_cast<int64_t>(w[2]);
          Entry& e = store_[key];
          if (w[3] > e.seq) {  // newer than what it holds: writes may arrive out of order
            if (!log_.append(w[3], key, value)) return (void)c.fail();
            e = Entry{value, w[3]};
            ++applied_;
          } else {
            ++stale_;  // a retry, or an older write after a newer one
            nanopu::probe("pb.backup.stale_write");
          }
          reply(c, Status::kOk);
        });
      })
      .status();
}

void Backup::snapshot(nanopu::rpc::ServerCall& c) {
  if (store_.size() > kSnapshotMaxKeys) return (void)c.fail();  // more than one reply holds
  std::vector<uint64_t> words = {head(static_cast<uint8_t>(Status::kOk)), store_.size()};
  for (const auto& [key, e] : store_)
    words.insert(words.end(), {static_cast<uint64_t>(key), static_cast<uint64_t>(e.value), e.seq});
  if (c.reply(static_cast<uint32_t>(8 * words.size())) == nanopu::ApiError::kOk) (void)c.write_words(words);
}

std::string Backup::banner() const {
  return "backup: serving context " + std::to_string(context_) + ", " + std::to_string(store_.size()) + " keys";
}

int Backup::report(nanopu::Runtime&, FILE*) {
  if (stats_)
    std::fprintf(stderr, "  backup.applied %llu\n  backup.stale %llu\n  backup.bad_requests %llu\n",
                 static_cast<unsigned long long>(applied_), static_cast<unsigned long long>(stale_),
                 static_cast<unsigned long long>(bad_));
  return 0;
}

nanopu::ProgramSpec primary_program() {
  nanopu::ProgramSpec s;
  s.name = "primary";
  s.help = "the primary: WRITE and READ from clients, each WRITE on the backup before it is answered";
  s.flags = {"backup", "replicate_timeout_us", "replicate_attempts"};
  s.make = Primary::make;
  return s;
}

nanopu::ProgramSpec backup_program() {
  nanopu::ProgramSpec s;
  s.name = "backup";
  s.help = "the backup: applies each write the primary sends it";
  s.has_flag = [](std::string_view) { return false; };  // nanopu's host flags only
  s.defaults = [] { absl::SetFlag(&FLAGS_context, 2); };
  s.make = Backup::make;
  return s;
}

}  // namespace pb
