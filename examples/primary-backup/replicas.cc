// The primary and the backup (replicas.h), written against the installed
// nanopu library only.
#include "replicas.h"

#include <cstdio>
#include <cstdlib>
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

void reply(nanopu::rpc::ServerCall& c, Status s) {
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
  p->log_path_ = a.state_dir + "/primary.log";
  if (!p->log_.open(p->log_path_, &p->store_, &p->next_seq_))
    return absl::InvalidArgumentError("cannot write " + p->log_path_ + " (--state_dir)");
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
  nanopu::rpc::serve_calls(
      t, [&](nanopu::rpc::ServerCall& c) { handle(to_backup, c); },
      [&](nanopu::rpc::Client& from, nanopu::rpc::Completion& done) { completed(from, done); });
}

void Primary::handle(nanopu::rpc::Client& to_backup, nanopu::rpc::ServerCall& c) {
  const uint64_t w0 = c.request_bytes() >= 16 ? c.read() : 0;
  const auto key = static_cast<int64_t>(c.read());
  if (kind_of(w0) == static_cast<uint8_t>(Op::kRead) && c.request_bytes() == kReadBytes) {
    ++reads_;
    auto it = store_.find(key);
    if (it == store_.end()) return reply(c, Status::kNotFound);
    (void)c.reply(16);
    (void)c.write(head(static_cast<uint8_t>(Status::kOk)));
    (void)c.write(static_cast<uint64_t>(it->second.value));
    return;
  }
  if (kind_of(w0) != static_cast<uint8_t>(Op::kWrite) || c.request_bytes() != kWriteBytes) {
    ++bad_;
    return reply(c, Status::kBadRequest);
  }
  ++writes_;
  const auto value = static_cast<int64_t>(c.read());
  // Logged before anyone can see it: a READ after a restart sees it too.
  const uint64_t seq = ++next_seq_;
  if (!log_.append(seq, key, value)) {
    (void)c.fail();
    return;
  }
  store_[key] = Entry{value, seq};
  replicate(to_backup, Replication{c.defer(), key, value, seq, 0});
}

void Primary::replicate(nanopu::rpc::Client& to_backup, Replication r) {
  for (;;) {
    if (++r.attempts > max_attempts_) {
      ++gave_up_;
      nanopu::probe("pb.primary.gave_up_on_backup");
      (void)r.reply.fail();  // the client hears it may be on the primary only
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
  auto it = in_flight_.find(done.id);
  if (it == in_flight_.end()) return;
  Replication r = std::move(it->second);
  in_flight_.erase(it);
  if (done.status != nanopu::rpc::CallStatus::kOk) {  // lost, or the backup restarted: again
    ++retries_;
    nanopu::probe("pb.primary.replicated_again");
    return replicate(to_backup, std::move(r));
  }
  uint64_t& acked = acked_[r.key];
  if (r.seq > acked) acked = r.seq;
  (void)r.reply.reply(8);
  (void)r.reply.write(head(static_cast<uint8_t>(Status::kOk)));
}

std::string Primary::banner() const {
  return "primary: serving context " + std::to_string(context_) + ", backup " + nanopu::format_ipv4(backup_.ip) +
         ":" + std::to_string(backup_.context) + ", " + std::to_string(store_.size()) + " keys from " + log_path_;
}

int Primary::report(nanopu::Runtime&, FILE*) {
  if (stats_)
    std::fprintf(stderr, "  primary.writes %llu\n  primary.reads %llu\n  primary.retries %llu\n  primary.gave_up %llu\n"
                 "  primary.bad_requests %llu\n",
                 static_cast<unsigned long long>(writes_), static_cast<unsigned long long>(reads_),
                 static_cast<unsigned long long>(retries_), static_cast<unsigned long long>(gave_up_),
                 static_cast<unsigned long long>(bad_));
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
