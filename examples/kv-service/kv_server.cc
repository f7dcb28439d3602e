// kv-server: a key-value service (GET, PUT, DELETE of values of any size up
// to --max_value bytes) written against the installed nanopu library only,
// on calls (nanopu/rpc.h). --threads threads serve contexts --context,
// --context + 1, ..., spread over the worker cores, and share one store
// (kv_store.h). Bad requests get an error reply, never silence.
//   kv-server --vdev='net_memif0,role=server,socket=/tmp/kv.sock' --lcores=1
//   kv-server --backend=uring --ip=127.0.0.1 --udp_port=9100
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "kv_protocol.h"
#include "kv_store.h"
#include "nanopu/address.h"
#include "nanopu/flags.h"
#include "nanopu/rpc.h"
#include "nanopu/runtime.h"

ABSL_FLAG(uint32_t, context, 1, "First context served.");
ABSL_FLAG(uint32_t, threads, 1, "Threads; thread i serves --context + i, on worker core i mod workers.");
ABSL_FLAG(uint32_t, max_value, 8192,
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

int fail(const std::string& why, int code) {
  std::fprintf(stderr, "kv-server: %s\n", why.c_str());
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  nanopu::init_flags_usage(
      "a key-value service (GET, PUT, DELETE) on nanopu calls.\n"
      "  kv-server --vdev='net_memif0,role=server,socket=/tmp/kv.sock' --lcores=1\n"
      "Ctrl-C or SIGTERM stops it; its counters are printed on exit.");
  absl::ParseCommandLine(argc, argv);
  absl::StatusOr<nanopu::Config> config = nanopu::Config::from_flags();
  if (!config.ok()) return fail(std::string(config.status().message()), 2);
  const uint32_t first = absl::GetFlag(FLAGS_context), threads = absl::GetFlag(FLAGS_threads);
  const uint32_t max_value = absl::GetFlag(FLAGS_max_value);
  if (threads == 0 || first + threads > 0x10000) return fail("--context + --threads must stay below 65536", 2);
  if (max_value + 24 > config->max_message_bytes)
    return fail("--max_value=" + std::to_string(max_value) + ": at most --max_message_bytes - 24 = " +
                    std::to_string(config->max_message_bytes - 24),
                2);
  absl::StatusOr<std::unique_ptr<nanopu::Runtime>> rt = nanopu::Runtime::create(*config);
  if (!rt.ok()) return fail(std::string(rt.status().message()), 1);
  kv::Store store;
  Counters n;
  const auto workers = static_cast<uint32_t>(config->worker_count());
  for (uint32_t i = 0; i < threads; ++i) {
    const auto context = static_cast<uint16_t>(first + i);
    auto body = [&store, &n, context, max_value](nanopu::Thread& t) {
      std::vector<uint64_t> buffer;  // this thread's own: PUT values are read into it
      if (!nanopu::rpc::serve_calls(t, context, 0, [&](nanopu::rpc::ServerCall& c) {
            handle(c, store, max_value, n, buffer);
          }))
        std::fprintf(stderr, "kv-server: context %u is taken\n", context);
    };
    if (absl::StatusOr<nanopu::Thread*> t = (*rt)->spawn(body, i % workers); !t.ok())
      return fail(std::string(t.status().message()), 1);
  }
  nanopu::Runtime::install_signal_handlers();
  std::fprintf(stderr, "kv-server: serving %s contexts %u..%u on %u worker(s); Ctrl-C stops\n",
               nanopu::format_ipv4(config->ip).c_str(), first, first + threads - 1, workers);
  const absl::Status s = (*rt)->run();
  (*rt)->print_stats(stderr);
  std::fprintf(stderr, "  kv.gets %llu\n  kv.puts %llu\n  kv.deletes %llu\n  kv.not_found %llu\n"
               "  kv.bad_requests %llu\n  kv.too_large %llu\n",
               static_cast<unsigned long long>(n.gets.load()), static_cast<unsigned long long>(n.puts.load()),
               static_cast<unsigned long long>(n.deletes.load()), static_cast<unsigned long long>(n.not_found.load()),
               static_cast<unsigned long long>(n.bad_requests.load()),
               static_cast<unsigned long long>(n.too_large.load()));
  return s.ok() ? 0 : fail(std::string(s.message()), 1);
}
