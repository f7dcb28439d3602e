// nanopu-bench-preempt: how long a message for a better-priority thread waits
// between the NIC core taking it and its thread running, while a
// lower-priority thread is busy on the same worker core — once through safe
// points (the main path) and once through the asynchronous signal path. Each
// beside its raw reference measured in the same run: a cache-line hop between
// the two cores, and a bare pthread_kill → handler delivery.
//
// Needs two lcores (NIC core and worker on different CPUs).
#include <pthread.h>
#include <rte_cycles.h>
#include <rte_eth_ring.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_pause.h>
#include <rte_ring.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/str_cat.h"
#include "bench/bench_table.h"
#include "runtime/platform/eal.h"
#include "nanopu/flags.h"
#include "nanopu/runtime.h"

ABSL_FLAG(uint32_t, samples, 20000, "Preemptions measured per path.");
ABSL_FLAG(std::string, json, "bench-preempt.json", "Where to write the results as JSON.");
ABSL_FLAG(uint32_t, worker_lcore, 1, "Lcore of the worker core (the NIC core is lcore 0).");

namespace {

using nanopu::AppHeader;
using nanopu::Thread;

constexpr uint32_t kIp = 0x0a000001;
constexpr uint16_t kLow = 1, kHigh = 2;

double ns(uint64_t tsc) { return static_cast<double>(tsc) * 1e9 / static_cast<double>(rte_get_tsc_hz()); }

double pct(std::vector<uint64_t> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return ns(v[static_cast<size_t>(q * static_cast<double>(v.size() - 1))]);
}

void send(Thread& t, uint16_t ctx, uint64_t word) {
  (void)t.write(AppHeader{kIp, ctx, 8}.word());
  (void)t.write(word);
}

// One path: returns arrival→running samples in TSC cycles.
std::vector<uint64_t> measure(bool async, uint32_t samples, uint32_t worker_lcore) {
  static int port_n = 0;
  rte_ring* r = rte_ring_create(absl::StrCat("bp", port_n++).c_str(), 1024, SOCKET_ID_ANY, 0);
  const int port = rte_eth_from_ring(r);
  nanopu::Config c;
  c.poll = nanopu::PollMode::kBusy;  // benchmarks poll: a core per poller
  c.lcores = {0, worker_lcore};
  c.port_id = port;
  c.ip = kIp;
  c.link_wait_s = 0;
  c.async_preempt_us = 0.5;  // signal as soon as a safe point is clearly missed
  auto rt = nanopu::Runtime::create(c);
  if (!rt.ok()) {
    std::fprintf(stderr, "nanopu-bench-preempt: %s\n", std::string(rt.status().message()).c_str());
    std::exit(1);
  }
  std::vector<uint64_t> lat;
  lat.reserve(samples);
  std::atomic<uint32_t> handled{0};
  (void)(*rt)->spawn([&](Thread& t) {  // H: priority 0
    (void)t.bind(kHigh, 0);
    while (t.wait()) {
      const uint64_t now = rte_rdtsc();
      const uint64_t arrived = t.rx_tsc();
      (void)t.read();
      const uint64_t v = t.read();
      if (v == UINT64_MAX) {
        t.msg_done();
        return;
      }
      lat.push_back(now - arrived);
      // Before msg_done: at msg_done the core may go straight back to L (it
      // has work, H has none), which spins until it sees this.
      handled.store(handled.load(std::memory_order_relaxed) + 1, std::memory_order_release);
      t.msg_done();
    }
  });
  (void)(*rt)->spawn([&](Thread& t) {  // L: priority 1, busy on one long message
    (void)t.bind(kLow, 1);
    t.allow_async_preemption(async);
    send(t, kLow, 0);
    if (!t.wait()) return;
    (void)t.read();
    for (uint32_t i = 0; i < samples; ++i) {
      const uint32_t before = handled.load(std::memory_order_acquire);
      send(t, kHigh, i);
      const uint64_t give_up = rte_rdtsc() + rte_get_tsc_hz();  // 1 s
      if (async) {
        // No API call at all: only the signal can get H running.
        while (handled.load(std::memory_order_acquire) == before && rte_rdtsc() < give_up) {
        }
      } else {
        while (handled.load(std::memory_order_acquire) == before && rte_rdtsc() < give_up)
          t.preempt_point();
      }
    }
    send(t, kHigh, UINT64_MAX);
    t.msg_done();
  });
  if (absl::Status s = (*rt)->run(); !s.ok()) {
    std::fprintf(stderr, "nanopu-bench-preempt: %s\n", std::string(s.message()).c_str());
    std::exit(1);
  }
  return lat;
}

// Reference 1: one-way cache-line hop lcore 0 → worker lcore (half a ping-pong).
struct PingPong {
  alignas(64) std::atomic<uint64_t> ping{0};
  alignas(64) std::atomic<uint64_t> pong{0};
  uint32_t rounds = 0;
};
int pong_main(void* arg) {
  auto* p = static_cast<PingPong*>(arg);
  for (uint64_t i = 1; i <= p->rounds; ++i) {
    while (p->ping.load(std::memory_order_acquire) != i) rte_pause();
    p->pong.store(i, std::memory_order_release);
  }
  return 0;
}
std::vector<uint64_t> hop_samples(uint32_t rounds, uint32_t lcore) {
  PingPong p;
  p.rounds = rounds;
  if (rte_eal_remote_launch(pong_main, &p, lcore) != 0) {
    std::fprintf(stderr, "nanopu-bench-preempt: lcore %u is busy\n", lcore);
    std::exit(1);
  }
  std::vector<uint64_t> v;
  for (uint64_t i = 1; i <= rounds; ++i) {
    const uint64_t t0 = rte_rdtsc();
    p.ping.store(i, std::memory_order_release);
    while (p.pong.load(std::memory_order_acquire) != i) rte_pause();
    v.push_back((rte_rdtsc() - t0) / 2);
  }
  rte_eal_wait_lcore(lcore);
  return v;
}

// Reference 2: pthread_kill from lcore 0 to a thread spinning on the worker lcore.
std::atomic<uint64_t> g_handler_tsc{0};
std::atomic<bool> g_signal_done{false};
pthread_t g_target;
void ref_handler(int) { g_handler_tsc.store(rte_rdtsc(), std::memory_order_release); }
int spin_main(void*) {
  g_target = pthread_self();
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGUSR2);
  pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
  g_handler_tsc.store(1, std::memory_order_release);  // ready
  while (!g_signal_done.load(std::memory_order_acquire)) {
  }
  return 0;
}
std::vector<uint64_t> signal_samples(uint32_t n, uint32_t lcore) {
  struct sigaction sa {};
  sa.sa_handler = ref_handler;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGUSR2, &sa, nullptr);
  g_handler_tsc = 0;
  g_signal_done = false;
  if (rte_eal_remote_launch(spin_main, nullptr, lcore) != 0) {
    std::fprintf(stderr, "nanopu-bench-preempt: lcore %u is busy\n", lcore);
    std::exit(1);
  }
  while (g_handler_tsc.load(std::memory_order_acquire) == 0) rte_pause();
  std::vector<uint64_t> v;
  for (uint32_t i = 0; i < n; ++i) {
    g_handler_tsc.store(0, std::memory_order_release);
    const uint64_t t0 = rte_rdtsc();
    pthread_kill(g_target, SIGUSR2);
    while (g_handler_tsc.load(std::memory_order_acquire) == 0) rte_pause();
    v.push_back(g_handler_tsc.load() - t0);
    rte_delay_us_block(20);
  }
  g_signal_done = true;
  rte_eal_wait_lcore(lcore);
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  nanopu::init_flags_usage(
      "measure arrival-to-running latency of a better-priority message, per preemption path.\n"
      "  nanopu-bench-preempt [--samples=N] [--json=PATH]");
  absl::ParseCommandLine(argc, argv);
  const uint32_t samples = absl::GetFlag(FLAGS_samples);
  const uint32_t wl = absl::GetFlag(FLAGS_worker_lcore);
  nanopu::EalParams eal;
  eal.lcores = {0, wl};
  if (absl::Status s = nanopu::eal_init(eal); !s.ok()) {
    std::fprintf(stderr, "nanopu-bench-preempt: %s\n", std::string(s.message()).c_str());
    return 1;
  }
  std::fprintf(stderr, "measuring: %u samples per path, NIC core lcore 0, worker lcore %u\n",
               samples, wl);
  std::fprintf(stderr, "  reference: cache-line hop\n");
  const std::vector<uint64_t> hop = hop_samples(100000, wl);
  std::fprintf(stderr, "  reference: pthread_kill -> handler\n");
  const std::vector<uint64_t> sig = signal_samples(std::min<uint32_t>(samples, 2000), wl);
  std::fprintf(stderr, "  safe-point path\n");
  const std::vector<uint64_t> safe = measure(false, samples, wl);
  std::fprintf(stderr, "  asynchronous path\n");
  const std::vector<uint64_t> async = measure(true, std::min<uint32_t>(samples, 2000), wl);

  using nanopu::bench::Row;
  std::vector<Row> rows = {
      {"arrival->running, safe point, p50", pct(safe, 0.5), "ns", "cache-line hop NIC->worker p50", pct(hop, 0.5), "", true},
      {"arrival->running, safe point, p99", pct(safe, 0.99), "ns", "cache-line hop NIC->worker p99", pct(hop, 0.99), "", true},
      {"arrival->running, async signal, p50", pct(async, 0.5), "ns", "pthread_kill->handler p50", pct(sig, 0.5), "", true},
      {"arrival->running, async signal, p99", pct(async, 0.99), "ns", "pthread_kill->handler p99", pct(sig, 0.99), "", true},
  };
  nanopu::bench::print_table("Preemption latency (HTS, priority 0 message while priority 1 runs)", rows);
  std::printf("samples: safe point %zu, async %zu (async includes the NIC's 0.5 us wait before signalling)\n",
              safe.size(), async.size());
  const std::string path = absl::GetFlag(FLAGS_json);
  if (!nanopu::bench::write_json(path, "preempt_latency", rows)) {
    std::fprintf(stderr, "nanopu-bench-preempt: cannot write %s (--json)\n", path.c_str());
    return 1;
  }
  return 0;
}
