// kv-server: a key-value service (GET, PUT, DELETE of values of any size up
// to --max_stored_value bytes) written against the installed nanopu library
// only, on calls (nanopu/rpc.h), as a program (nanopu/program.h): the same
// code serves live and on the modelled clock. --threads threads serve
// contexts --context, --context + 1, ..., spread over the worker cores, and
// share one store (kv_store.h). Bad requests get an error reply, never
// silence.
//   kv-service kv-server --vdev='net_memif0,role=server,socket=/tmp/kv.sock' --lcores=1
//   kv-service kv-server --backend=uring --ip=127.0.0.1 --udp_port=9100
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "kv_programs.h"
#include "kv_protocol.h"
#include "kv_store.h"
#include "nanopu/address.h"
#include "nanopu/program_flags.h"
#include "nanopu/rpc.h"

ABSL_FLAG(uint32_t, threads, 1, "Threads; thread i serves --context + i, on worker core i mod workers.");
ABSL_FLAG(uint32_t, max_stored_value, 8192,
          "Largest value a PUT may store, in bytes; a larger one is answered TOO_LARGE. At most "
          "--max_message_bytes less 24 (the call word, w0 and the key).");

namespace {

struct Counters {
  std::atomic<uint64_t> gets{0}, puts{0}, deletes{0}, not_found{0}, bad_requests{0}, too_large{0};
};

void reply_status(nanopu::rpc::ServerCall& c, kv::Status s) {
  (void)c.reply(kv::kReplyHeadBytes);
  (void)c.write(kv::head_word(static_cast<uint8_t>(s), 0));
}

// GET: the value, copied out under its shard's lock, written after it.
void get(nanopu::rpc::ServerCall& c, uint64_t key, const kv::Store& store, Counters& n) {
  ++n.gets;
  kv::Store::Value v;
  if (!store.get(key, &v)) {
    ++n.not_found;
    return reply_status(c, kv::Status::kNotFound);
  }
  (void)c.reply(kv::kReplyHeadBytes + v.bytes);
  (void)c.write(kv::head_word(static_cast<uint8_t>(kv::Status::kOk), v.bytes));
  (void)c.write_words(v.words);
}

// PUT: the whole value read from the FIFO first, then stored.
void put(nanopu::rpc::ServerCall& c, uint64_t key, uint32_t value_bytes, uint32_t max_value,
         kv::Store& store, Counters& n, std::vector<uint64_t>& buffer) {
  ++n.puts;
  if (value_bytes > max_value) {
    ++n.too_large;
    return reply_status(c, kv::Status::kTooLarge);
  }
  if (c.request_bytes() != kv::kRequestHeadBytes + value_bytes) {
    ++n.bad_requests;
    return reply_status(c, kv::Status::kBadRequest);
  }
  buffer.resize(kv::words_for(value_bytes));
  (void)c.read_words(buffer);
  store.put(key, buffer, value_bytes);
  reply_status(c, kv::Status::kOk);
}

void handle(nanopu::rpc::ServerCall& c, kv::Store& store, uint32_t max_value, Counters& n,
            std::vector<uint64_t>& buffer) {
  if (c.request_bytes() < kv::kRequestHeadBytes) {
    ++n.bad_requests;
    return reply_status(c, kv::Status::kBadRequest);
  }
  const uint64_t w0 = c.read();
  const uint64_t key = c.read();
  const auto op = static_cast<kv::Op>(kv::kind_of(w0));
  const bool head_only = c.request_bytes() == kv::kRequestHeadBytes;
  switch (op) {
    case kv::Op::kGet:
      if (head_only) return get(c, key, store, n);
      break;
    case kv::Op::kPut:
      return put(c, key, kv::value_bytes_of(w0), max_value, store, n, buffer);
    case kv::Op::kDelete:
      if (!head_only) break;
      ++n.deletes;
      if (store.erase(key)) return reply_status(c, kv::Status::kOk);
      ++n.not_found;
      return reply_status(c, kv::Status::kNotFound);
  }
  ++n.bad_requests;  // an unknown op, or a GET or DELETE with words after the key
  reply_status(c, kv::Status::kBadRequest);
}

// One host's server: its settings read from the flags when it is made,
// its store and counters its own (a simulation holds several hosts).
class KvServer final : public nanopu::Program {
 public:
  explicit KvServer(const nanopu::ProgramArgs& a)
      : ip_(a.config.ip),
        workers_(static_cast<uint32_t>(a.config.worker_count())),
        first_(absl::GetFlag(FLAGS_context)),
        threads_(absl::GetFlag(FLAGS_threads)),
        max_value_(absl::GetFlag(FLAGS_max_stored_value)),
        stats_(absl::GetFlag(FLAGS_stats)) {}

  absl::Status check(const nanopu::Config& c) const {
    if (threads_ == 0 || first_ + threads_ > 0x10000)
      return absl::InvalidArgumentError("--context + --threads must stay below 65536");
    if (max_value_ + 24 > c.max_message_bytes)
      return absl::InvalidArgumentError("--max_stored_value=" + std::to_string(max_value_) +
                                        ": at most --max_message_bytes - 24 = " +
                                        std::to_string(c.max_message_bytes - 24));
    return absl::OkStatus();
  }

  absl::Status spawn(nanopu::Runtime& rt) override {
    for (uint32_t i = 0; i < threads_; ++i) {
      const auto context = static_cast<uint16_t>(first_ + i);
      auto body = [this, context](nanopu::Thread& t) {
        std::vector<uint64_t> buffer;  // this thread's own: PUT values are read into it
        if (!nanopu::rpc::serve_calls(t, context, 0, [&](nanopu::rpc::ServerCall& c) {
              handle(c, store_, max_value_, n_, buffer);
            }))
          std::fprintf(stderr, "kv-server: context %u is taken\n", context);
      };
      if (absl::StatusOr<nanopu::Thread*> t = rt.spawn(body, i % workers_); !t.ok()) return t.status();
    }
    return absl::OkStatus();
  }

  std::string banner() const override {
    return "kv-server: serving " + nanopu::format_ipv4(ip_) + " contexts " + std::to_string(first_) + ".." +
           std::to_string(first_ + threads_ - 1) + " on " + std::to_string(workers_) + " worker(s)";
  }

  int report(nanopu::Runtime& rt, FILE*) override {
    if (!stats_) return 0;
    rt.print_stats(stderr);
    std::fprintf(stderr, "  kv.gets %llu\n  kv.puts %llu\n  kv.deletes %llu\n  kv.not_found %llu\n"
                 "  kv.bad_requests %llu\n  kv.too_large %llu\n",
                 static_cast<unsigned long long>(n_.gets.load()), static_cast<unsigned long long>(n_.puts.load()),
                 static_cast<unsigned long long>(n_.deletes.load()),
                 static_cast<unsigned long long>(n_.not_found.load()),
                 static_cast<unsigned long long>(n_.bad_requests.load()),
                 static_cast<unsigned long long>(n_.too_large.load()));
    return 0;
  }

 private:
  uint32_t ip_, workers_, first_, threads_, max_value_;
  bool stats_;
  kv::Store store_;
  Counters n_;
};

}  // namespace

nanopu::ProgramSpec kv_server_program() {
  nanopu::ProgramSpec s;
  s.name = "kv-server";
  s.help = "a key-value service (GET, PUT, DELETE) on nanopu calls; its counters at exit (--stats)";
  s.flags = {"threads", "max_stored_value"};
  // A server prints its counters at exit live unless --nostats; in a
  // simulation only with --stats.
  s.defaults = [] { absl::SetFlag(&FLAGS_stats, true); };
  s.make = [](const nanopu::ProgramArgs& a) -> absl::StatusOr<std::unique_ptr<nanopu::Program>> {
    auto p = std::make_unique<KvServer>(a);
    if (absl::Status s = p->check(a.config); !s.ok()) return s;
    return p;
  };
  return s;
}
