// measure_scaling (bench/e2e/measurements.h): closed-loop nanopu-to-nanopu
// message rate as worker cores and message size grow.
#include <rte_cycles.h>

#include <cstdlib>

#include <algorithm>
#include <span>
#include <memory>

#include "absl/strings/str_cat.h"
#include "bench/e2e/measurements.h"
#include "bench/e2e/server_host.h"
#include "runtime/platform/ring_port.h"
#include "nanopu/app_header.h"
#include "lib/wire/frame.h"

namespace nanopu::bench {
namespace {

// Keeps `window` echo requests of `bytes` in flight; counts replies over the
// measured interval after the warm-up.
void closed_loop(Thread& t, uint16_t bytes, uint32_t window, const RunOptions& o, ChildResult* r) {
  if (!t.bind(kClientContext).ok()) return r->fail("client bind failed");
  const uint32_t words = (bytes + 7u) / 8u;
  const double hz = static_cast<double>(rte_get_tsc_hz());
  const uint64_t start = rte_rdtsc();
  const uint64_t measure_from = start + static_cast<uint64_t>(o.warmup_s * hz);
  const uint64_t end = measure_from + static_cast<uint64_t>(o.seconds * hz);
  uint64_t sent = 0, received = 0, at_start = 0, t0 = 0;
  bool measuring = false;
  // Payload words move a segment at a time (Thread::write_words and
  // read_words), as a service moving bulk data would.
  constexpr uint32_t kChunk = 128;
  uint64_t buf[kChunk];
  for (;;) {
    while (sent - received < window) {
      if (t.write(AppHeader{kServerIp, kServerContext, bytes}.word()) != ApiError::kOk)
        return r->fail("write refused");
      for (uint32_t i = 0; i < words; i += kChunk) {
        const uint32_t n = std::min(kChunk, words - i);
        for (uint32_t j = 0; j < n; ++j) buf[j] = sent + i + j;
        (void)t.write_words(std::span<const uint64_t>(buf, n));
      }
      ++sent;
    }
    if (!t.wait()) return r->fail("stopped");
    (void)t.read();
    for (uint32_t i = 0; i < words; i += kChunk)
      (void)t.read_words(std::span<uint64_t>(buf, std::min(kChunk, words - i)));
    t.msg_done();
    ++received;
    if ((received & 15) != 0) continue;
    const uint64_t now = rte_rdtsc();
    if (!measuring && now >= measure_from) {
      measuring = true;
      at_start = received;
      t0 = now;
    }
    if (now >= end) {
      r->v[1] = static_cast<double>(now - t0) / hz;
      r->count = received - at_start;
      r->v[0] = static_cast<double>(r->count) / r->v[1];
      return;
    }
  }
}

}  // namespace

ChildResult measure_scaling(uint32_t workers, uint32_t msg_bytes, const RunOptions& o) {
  ChildResult r;
  if (absl::Status s = init_child_eal({0, 1}, {}); !s.ok()) {
    r.fail(std::string(s.message()));
    return r;
  }
  absl::StatusOr<RingPortPair> pair = make_ring_port_pair("scale");
  if (!pair.ok()) {
    r.fail(std::string(pair.status().message()));
    return r;
  }
  absl::StatusOr<std::unique_ptr<ServerHost>> server =
      ServerHost::start(server_config(pair->a, workers), workers);
  if (!server.ok()) {
    r.fail(std::string(server.status().message()));
    return r;
  }
  Config c;
  c.poll = nanopu::PollMode::kBusy;  // benchmarks poll: a core per poller
  c.lcores = {0};
  c.port_id = pair->b;
  c.ip = kClientIp;
  c.link_wait_s = 0;
  c.rto_us = 1000;  // as the server's (server_host.cc)
  absl::StatusOr<std::unique_ptr<Runtime>> client = Runtime::create(c);
  if (!client.ok()) {
    r.fail(std::string(client.status().message()));
    return r;
  }
  // In flight: at most ~1024 packets, so one context's receive-buffer share
  // (a quarter of the mbufs) never refuses and the rate is the path's own.
  const auto pkts = static_cast<uint32_t>(wire::packets_for(static_cast<uint16_t>(msg_bytes)));
  const uint32_t window = std::clamp<uint32_t>(1024 / pkts, 1, std::min<uint32_t>(o.window, 64));
  absl::StatusOr<Thread*> t = (*client)->spawn([&](Thread& th) {
    closed_loop(th, static_cast<uint16_t>(msg_bytes), window, o, &r);
  });
  if (!t.ok()) {
    r.fail(std::string(t.status().message()));
    return r;
  }
  if (absl::Status s = (*server)->launch(); !s.ok()) {
    r.fail(std::string(s.message()));
    return r;
  }
  if (absl::Status s = (*client)->run(); !s.ok()) r.fail(std::string(s.message()));
  (*server)->stop();
  (*server)->print_stages(absl::StrCat("scaling, ", msg_bytes, " B, the echo server"));
  if (getenv("NANOPU_BENCH_STATS") != nullptr) {
    (*server)->runtime().print_stats(stderr);
    (*client)->print_stats(stderr);
  }
  r.v[2] = window;
  // The two hosts hold each other's buffers (net_ring passes mbufs, not
  // copies): both let go before either pool is destroyed.
  (*client)->release_buffers();
  (*server)->runtime().release_buffers();
  return r;
}

}  // namespace nanopu::bench
