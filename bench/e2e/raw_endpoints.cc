#include "lib/base/stall_probe.h"
#include "bench/e2e/raw_endpoints.h"

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_launch.h>

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace nanopu::bench {
namespace {

constexpr uint16_t kBurst = 32;

// Sends all n, retrying while the port is full (or until stop).
void send_all(uint16_t port, rte_mbuf** pkts, uint16_t n, const std::atomic<bool>& stop) {
  uint16_t done = 0;
  while (done < n) {
    done += rte_eth_tx_burst(port, 0, pkts + done, static_cast<uint16_t>(n - done));
    if (done < n && stop.load(std::memory_order_relaxed)) {
      rte_pktmbuf_free_bulk(pkts + done, n - done);
      return;
    }
  }
}

}  // namespace

void run_io_forward(uint16_t port, const std::atomic<bool>& stop, std::atomic<uint64_t>* forwarded) {
  rte_mbuf* pkts[kBurst];
  uint64_t count = 0;
  while (!stop.load(std::memory_order_relaxed)) {
    const uint16_t n = rte_eth_rx_burst(port, 0, pkts, kBurst);
    if (n == 0) continue;
    send_all(port, pkts, n, stop);
    count += n;
    forwarded->store(count, std::memory_order_relaxed);
  }
}

absl::StatusOr<std::unique_ptr<Port>> open_raw_port(uint16_t port_id, unsigned lcore,
                                                   const std::string& tag) {
  (void)lcore;  // the port's pool is not tied to an lcore
  PortParams p;
  p.port_id = port_id;
  return Port::open(p, tag);
}

int IoForwarder::main(void* self) {
  auto* f = static_cast<IoForwarder*>(self);
  run_io_forward(f->port_, f->stop_, &f->forwarded_);
  return 0;
}

absl::Status IoForwarder::launch(uint16_t port, unsigned lcore) {
  port_ = port;
  stop_.store(false);
  if (rte_eal_remote_launch(main, this, lcore) != 0)
    return absl::InternalError(absl::StrCat("cannot launch the io-forward loop on lcore ", lcore));
  lcore_ = static_cast<int>(lcore);
  return absl::OkStatus();
}

void IoForwarder::stop() {
  if (lcore_ < 0) return;
  stop_.store(true);
  (void)rte_eal_wait_lcore(static_cast<unsigned>(lcore_));
  lcore_ = -1;
}

void run_peer(uint16_t port, rte_mempool* pool, RequestPeer* peer, const std::atomic<bool>& stop,
              uint64_t deadline_tsc) {
  rte_mbuf* rx[kBurst];
  rte_mbuf* tx[kBurst];
  while (!stop.load(std::memory_order_relaxed) && rte_rdtsc() < deadline_tsc) {
    const uint16_t n = rte_eth_rx_burst(port, 0, rx, kBurst);
    if (n != 0) {
      peer->absorb(rx, n);
      rte_pktmbuf_free_bulk(rx, n);
    }
    const auto want = static_cast<uint16_t>(std::min<uint32_t>(kBurst, peer->wanted()));
    if (want == 0 || rte_pktmbuf_alloc_bulk(pool, tx, want) != 0) continue;
    const uint16_t used = peer->fill(tx, want);
    if (used < want) rte_pktmbuf_free_bulk(tx + used, want - used);
    send_all(port, tx, used, stop);
  }
}

bool run_ping_pong(uint16_t port, rte_mempool* pool, uint16_t frame_bytes, uint64_t warmup,
                   uint64_t samples, loadgen::Histogram* rtt_ns, const std::atomic<bool>& stop,
                   HostNoise* noise) {
  const double ns_per_tsc = 1e9 / static_cast<double>(rte_get_tsc_hz());
  StallProbe probe;
  probe.arm(rte_get_tsc_hz());
  const uint64_t timeout = 10 * rte_get_tsc_hz();  // 10 s: a lost echo, not a slow minute
  for (uint64_t i = 0; i < warmup + samples; ++i) {
    rte_mbuf* m = rte_pktmbuf_alloc(pool);
    if (m == nullptr) return false;
    auto* p = rte_pktmbuf_append(m, frame_bytes);
    std::memset(p, 0, frame_bytes);
    const uint64_t t0 = rte_rdtsc();
    std::memcpy(p, &t0, sizeof t0);
    send_all(port, &m, 1, stop);
    rte_mbuf* back = nullptr;
    probe.resume(t0);
    while (rte_eth_rx_burst(port, 0, &back, 1) == 0) {
      const uint64_t now = rte_rdtsc();
      probe.turn(now);
      if (now - t0 > timeout || stop.load(std::memory_order_relaxed)) return false;
    }
    const uint64_t t1 = rte_rdtsc();
    probe.turn(t1);
    rte_pktmbuf_free(back);
    if (i >= warmup) rtt_ns->record(static_cast<uint64_t>(static_cast<double>(t1 - t0) * ns_per_tsc));
  }
  *noise = probe.profile();
  return true;
}

}  // namespace nanopu::bench
