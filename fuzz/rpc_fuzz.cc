// libFuzzer target for calls (nanopu/rpc.h): the parsers are the client's
// reply matching and serve_calls' request reading. An input is a program
// run by a client thread on a host whose port loops back to itself, beside
// a serve_calls server on the same host: calls of any size and deadline,
// forged replies (any kind, any id, any length) sent to the client's own
// context, and garbage messages to the server. Invariants: no crash or
// memory error; every call completes exactly once; a completion with kOk
// carries exactly the reply the server built for that call, from the peer
// it was sent to; every call is complete once its deadline has passed.

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <unordered_map>
#include <vector>

#include "fuzz/fuzz_eal.h"
#include "fuzz/loopback_host.h"
#include "nanopu/rpc.h"
#include "nanopu/runtime.h"

namespace {

constexpr uint32_t kIp = 0x0a000001;
constexpr uint16_t kServer = 1;
constexpr uint16_t kClient = 2;

#define FUZZ_FAIL()                                                        \
  do {                                                                     \
    std::fprintf(stderr, "rpc_fuzz: invariant at line %d\n", __LINE__);    \
    std::abort();                                                          \
  } while (0)

// The server's reply to call `id` that asked for `words` words.
uint64_t reply_word(uint64_t id, uint32_t i) { return id * 0x9e3779b97f4a7c15ull ^ i; }

// How the server answers, from bits 55..54 of the first request word.
enum Mode : uint32_t { kPlain = 0, kDeferred = 1, kFails = 2, kTooLong = 3 };

void serve(nanopu::Thread& t) {
  (void)nanopu::rpc::serve_calls(t, kServer, 0, [](nanopu::rpc::ServerCall& c) {
    // The first request word's high byte asks for a reply of that many
    // words (0..63): a short word keeps its high-order bytes.
    const uint64_t w = c.request_words() == 0 ? 0 : c.read();
    const uint32_t want = static_cast<uint32_t>((w >> 56) % 64);
    switch (static_cast<Mode>((w >> 54) & 3)) {
      case kFails: (void)c.fail(); return;
      case kTooLong: (void)c.reply(nanopu::rpc::kMaxCallBytes + 1); return;  // the caller hears kServerFailed
      case kDeferred: {  // answered through a DeferredReply, on this thread
        nanopu::rpc::DeferredReply r = c.defer();
        if (r.reply(want * 8) != nanopu::ApiError::kOk) return;
        for (uint32_t i = 0; i < want; ++i) (void)r.write(reply_word(c.id(), i));
        return;
      }
      case kPlain: break;
    }
    if (c.reply(want * 8) != nanopu::ApiError::kOk) return;
    for (uint32_t i = 0; i < want; ++i) (void)c.write(reply_word(c.id(), i));
  });
}

struct Program {
  const uint8_t* d;
  size_t n;
  size_t i = 0;
  uint8_t byte() { return i < n ? d[i++] : 0; }
};

struct Asked {
  uint32_t words = 0;
  uint32_t mode = kPlain;
};

void check(const nanopu::rpc::Completion& c, std::unordered_map<uint64_t, Asked>& open) {
  auto it = open.find(c.id);
  if (it == open.end()) FUZZ_FAIL();  // completed twice, or never called
  const bool fails = it->second.mode == kFails || it->second.mode == kTooLong;
  if (fails && c.status == nanopu::rpc::CallStatus::kOk) FUZZ_FAIL();  // never an empty ok for a failed reply
  if (c.status == nanopu::rpc::CallStatus::kServerFailed) {
    if (!fails) FUZZ_FAIL();
    if (c.server_failure != (it->second.mode == kFails ? nanopu::rpc::ServerFailure::kFailed
                                                       : nanopu::rpc::ServerFailure::kReplyTooLong))
      FUZZ_FAIL();
  }
  if (c.status == nanopu::rpc::CallStatus::kOk) {
    if (c.to.ip != kIp || c.to.context != kServer) FUZZ_FAIL();
    if (c.reply_bytes != it->second.words * 8 || c.reply.size() != it->second.words) FUZZ_FAIL();
    for (uint32_t i = 0; i < it->second.words; ++i)
      if (c.reply[i] != reply_word(c.id, i)) FUZZ_FAIL();
  }
  open.erase(it);
}

void run_client(nanopu::Thread& t, Program p) {
  if (!t.bind(kClient).ok()) FUZZ_FAIL();
  nanopu::rpc::Client client(t);
  std::unordered_map<uint64_t, Asked> open;  // call id -> what it asked of the server
  std::vector<uint64_t> words;
  nanopu::rpc::Completion c;
  for (int steps = 0; p.i < p.n && steps < 256; ++steps) {
    switch (p.byte() % 5) {
      case 0: {  // a call: reply size asked in its first word, any length, a short deadline
        const uint32_t want = p.byte() % 64;
        const uint32_t mode = p.byte() % 4;
        words.assign(1 + p.byte() % 16, uint64_t{want} << 56 | uint64_t{mode} << 54);
        const uint32_t bytes = static_cast<uint32_t>(words.size() * 8 - p.byte() % 8);
        uint64_t id = 0;
        const auto deadline = std::chrono::microseconds(100 + p.byte() * 20);
        // A first word cut short keeps its high bytes: the mode survives.
        if (client.call({kIp, kServer}, words, bytes, deadline, 0, &id) == nanopu::ApiError::kOk)
          open[id] = Asked{want, bytes < 2 ? uint32_t{kPlain} : mode};
        break;
      }
      case 1: {  // a forged reply to ourselves: any kind, any id (small, so it may collide), any length
        const uint16_t len = static_cast<uint16_t>(1 + (p.byte() << 2 | p.byte() % 4));
        const auto kind = static_cast<uint8_t>(p.byte() % 2 ? nanopu::rpc::kReplyKind : p.byte());
        (void)t.write(nanopu::AppHeader{kIp, kClient, len}.word());
        (void)t.write(nanopu::rpc::call_word(kind, p.byte() % 8));
        for (uint32_t w = 1; w < (len + 7u) / 8; ++w) (void)t.write(p.byte());
        break;
      }
      case 2: {  // garbage to the server: a request kind or not, any length. Its ids
        // are far from the client's (counted from 1): a request this thread
        // forged with a live id would be answered to it, rightly taken.
        const uint16_t len = static_cast<uint16_t>(1 + p.byte());
        (void)t.write(nanopu::AppHeader{kIp, kServer, len}.word());
        (void)t.write(nanopu::rpc::call_word(p.byte() % 2 ? nanopu::rpc::kRequestKind : p.byte(),
                                             uint64_t{1} << 47 | p.byte()));
        for (uint32_t w = 1; w < (len + 7u) / 8; ++w) (void)t.write(p.byte() % 64);
        break;
      }
      case 3:
        while (client.next(&c, std::chrono::microseconds(0))) check(c, open);
        break;
      default:
        t.idle();
        break;
    }
  }
  // Every call ends: answered, or past its deadline (at most ~5 ms).
  for (int k = 0; k < 1000 && client.in_flight() != 0; ++k)
    if (client.next(&c, std::chrono::milliseconds(10))) check(c, open);
  if (client.in_flight() != 0 || !open.empty()) FUZZ_FAIL();
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  nanopu::fuzz::init_eal();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  nanopu::fuzz::LoopbackHost host("rz", kIp);
  nanopu::Runtime& rt = host.runtime();
  bool done = false;
  if (!rt.spawn(serve).ok()) std::abort();
  if (!rt.spawn([&](nanopu::Thread& t) {
        run_client(t, Program{data, size});
        done = true;
      }).ok())
    std::abort();
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!done && std::chrono::steady_clock::now() < end) rt.poll_once();
  if (!done) std::abort();  // a program of bounded steps must end
  return 0;
}
