// libFuzzer target for the application API's message validation: an input is
// a program of Thread calls (headers with any length and destination, payload
// words, reads, msg_done, idle, bind) run by one nanopu thread on a host
// whose port loops back to itself. Invariants: no crash or memory error; every
// call returns a defined ApiError; a read never yields data from outside the
// current message (past its end: 0 and kReadPastEnd).
#include <rte_eth_ring.h>
#include <rte_ring.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "fuzz/fuzz_eal.h"
#include "nanopu/runtime.h"

namespace {

constexpr uint32_t kIp = 0x0a000001;

bool valid(nanopu::ApiError e) {
  return e == nanopu::ApiError::kOk || e == nanopu::ApiError::kRxEmpty ||
         e == nanopu::ApiError::kReadPastEnd || e == nanopu::ApiError::kBadLength ||
         e == nanopu::ApiError::kNoBuffers || e == nanopu::ApiError::kNotBound ||
         e == nanopu::ApiError::kStopped;
}

void run_program(nanopu::Thread& t, const uint8_t* d, size_t n) {
  size_t i = 0;
  auto byte = [&]() -> uint8_t { return i < n ? d[i++] : 0; };
  for (int steps = 0; i < n && steps < 512; ++steps) {
    switch (byte() % 8) {
      case 0: {  // header to this host, any length (0 and too long included)
        const uint16_t len = static_cast<uint16_t>(byte() << 8 | byte());
        const uint16_t ctx = byte() % 4;
        if (!valid(t.write(nanopu::AppHeader{kIp, ctx, len}.word()))) std::abort();
        break;
      }
      case 1: {
        uint64_t w = 0;
        for (int k = 0; k < 8; ++k) w = w << 8 | byte();
        if (!valid(t.write(w))) std::abort();
        break;
      }
      case 2: {
        const uint32_t left = t.rx_words_left();
        uint64_t w = 1;
        const nanopu::ApiError e = t.read(&w);
        if (!valid(e)) std::abort();
        if (e != nanopu::ApiError::kOk && w != 0) std::abort();  // never stale data
        if (left == 0 && t.msgs_ready() && e == nanopu::ApiError::kOk) {
          // A new message starts with its header: length within bounds.
          if (nanopu::AppHeader::from_word(w).len == 0) std::abort();
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
  static int n = 0;
  rte_ring* r = rte_ring_create(("fz" + std::to_string(n)).c_str(), 1024, SOCKET_ID_ANY, 0);
  const int port = r == nullptr ? -1 : rte_eth_from_ring(r);
  if (port < 0) std::abort();
  ++n;
  {
    nanopu::Config c;
    c.lcores = {0};
    c.port_id = port;
    c.ip = kIp;
    c.mbufs = 2047;
    c.max_message_bytes = 4096;
    c.link_wait_s = 0;
    auto rt = nanopu::Runtime::create(c);
    if (!rt.ok()) std::abort();
    bool done = false;
    if (!(*rt)->spawn([&](nanopu::Thread& t) {
          run_program(t, data, size);
          done = true;
        }).ok())
      std::abort();
    for (int k = 0; k < 100000 && !done; ++k) (*rt)->poll_once();
    if (!done) std::abort();  // a program of bounded steps must end
  }
  rte_ring_free(r);
  return 0;
}
