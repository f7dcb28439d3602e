// libFuzzer target for the application API's message validation: an input is
// a program of Thread calls (headers with any length and destination, payload
// words, checked headers of any size, reads, msg_done, idle, bind, bulk
// read_words/write_words, and the
// traditional path's whole-message
// receive_message/send_message with any header and word count) run by one
// nanopu thread on a host
// whose port loops back to itself. Invariants: no crash or memory error; every
// call returns a defined ApiError; a read never yields data from outside the
// current message (past its end: 0 and kReadPastEnd); receive_message
// gives exactly the message's words not yet read.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "fuzz/fuzz_eal.h"
#include "fuzz/loopback_host.h"
#include "nanopu/memory_message.h"
#include "nanopu/runtime.h"

namespace {

constexpr uint32_t kIp = 0x0a000001;

// Names the broken invariant's line, then aborts (libFuzzer keeps the input).
#define FUZZ_FAIL()                                                    \
  do {                                                                 \
    std::fprintf(stderr, "thread_api_fuzz: invariant at line %d\n", __LINE__); \
    std::abort();                                                      \
  } while (0)

bool valid(nanopu::ApiError e) {
  return e == nanopu::ApiError::kOk || e == nanopu::ApiError::kRxEmpty ||
         e == nanopu::ApiError::kReadPastEnd || e == nanopu::ApiError::kBadLength ||
         e == nanopu::ApiError::kNoBuffers || e == nanopu::ApiError::kNotBound ||
         e == nanopu::ApiError::kStopped || e == nanopu::ApiError::kMessageOpen ||
         e == nanopu::ApiError::kBadHeader || e == nanopu::ApiError::kTooLong ||
         e == nanopu::ApiError::kIncomplete;
}

void run_program(nanopu::Thread& t, const uint8_t* d, size_t n) {
  size_t i = 0;
  auto byte = [&]() -> uint8_t { return i < n ? d[i++] : 0; };
  nanopu::MemoryMessage m;
  std::vector<uint64_t> out;
  for (int steps = 0; i < n && steps < 512; ++steps) {
    switch (byte() % 13) {
      case 12: {  // a checked header: any size, any destination (0.0.0.0 included)
        const size_t len = static_cast<size_t>(byte()) << 10 | byte();
        const uint32_t ip = byte() % 3 == 0 ? 0 : kIp;
        const nanopu::ApiError e = t.write_header(ip, static_cast<uint16_t>(byte() % 4), len);
        if (!valid(e)) FUZZ_FAIL();
        break;
      }
      case 8: {  // a whole message from memory: any length, any word count
        const uint16_t len = static_cast<uint16_t>(byte() << 8 | byte());
        out.assign(byte() % 2 ? (len + 7u) / 8 : byte(), 0x5a5a5a5a5a5a5a5aull);
        if (!valid(t.send_message(nanopu::AppHeader{kIp, static_cast<uint16_t>(byte() % 4), len}, out)))
          FUZZ_FAIL();
        break;
      }
      case 10: {  // bulk words out: headers and payload as write() takes them
        out.resize(byte() % 40);
        for (uint64_t& w : out) w = byte() % 2 ? nanopu::AppHeader{kIp, static_cast<uint16_t>(byte() % 4),
                                                                    static_cast<uint16_t>(byte() << 4)}.word()
                                               : 0x0123456789abcdefull;
        if (!valid(t.write_words(out))) FUZZ_FAIL();
        break;
      }
      case 11: {  // bulk words in: never stale data past what was read
        std::vector<uint64_t> in(byte() % 40, 0xdeadbeefull);
        const nanopu::ApiError e = t.read_words(in);
        if (!valid(e)) FUZZ_FAIL();
        if (e != nanopu::ApiError::kOk && !in.empty() && in.back() != 0) FUZZ_FAIL();
        break;
      }
      case 9: {  // a whole message into memory
        // Words of a message begun with read() not yet read (its header
        // is read first); 0 also when none is begun or all are read.
        const uint32_t left = t.rx_words_left();
        const nanopu::ApiError e = t.receive_message(&m);
        if (e != nanopu::ApiError::kOk && e != nanopu::ApiError::kRxEmpty) FUZZ_FAIL();
        if (e == nanopu::ApiError::kOk) {
          if (m.header.len == 0) FUZZ_FAIL();
          // Exactly the words not yet read: all of a new message's.
          const size_t got = m.payload.size();
          if (left != 0 ? got != left : (got != 0 && got != m.header.payload_words())) FUZZ_FAIL();
        }
        break;
      }
      case 0: {  // header to this host, any length (0 and too long included)
        const uint16_t len = static_cast<uint16_t>(byte() << 8 | byte());
        const uint16_t ctx = byte() % 4;
        if (!valid(t.write(nanopu::AppHeader{kIp, ctx, len}.word()))) FUZZ_FAIL();
        break;
      }
      case 1: {
        uint64_t w = 0;
        for (int k = 0; k < 8; ++k) w = w << 8 | byte();
        if (!valid(t.write(w))) FUZZ_FAIL();
        break;
      }
      case 2: {
        const uint32_t left = t.rx_words_left();
        uint64_t w = 1;
        const nanopu::ApiError e = t.read(&w);
        if (!valid(e)) FUZZ_FAIL();
        if (e != nanopu::ApiError::kOk && w != 0) FUZZ_FAIL();  // never stale data
        if (left == 0 && t.msgs_ready() && e == nanopu::ApiError::kOk) {
          // A new message starts with its header: length within bounds.
          if (nanopu::AppHeader::from_word(w).len == 0) FUZZ_FAIL();
        }
        break;
      }
      case 3:
        t.msg_done();
        break;
      case 4:
        t.idle();
        break;
      case 5:
        (void)t.bind(byte() % 4, byte() % 3);
        break;
      case 6:
        t.preempt_point();
        break;
      default:
        for (int k = 0; k < 4; ++k) t.idle();  // let the NIC loop messages back
        break;
    }
  }
  t.msg_done();
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  nanopu::fuzz::init_eal();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  nanopu::fuzz::LoopbackHost host("fz", kIp);
  nanopu::Runtime& rt = host.runtime();
  bool done = false;
  if (!rt.spawn([&](nanopu::Thread& t) {
        run_program(t, data, size);
        done = true;
      }).ok())
    std::abort();
  for (int k = 0; k < 100000 && !done; ++k) rt.poll_once();
  if (!done) std::abort();  // a program of bounded steps must end
  return 0;
}
