// measure_hop (bench/e2e/measurements.h): a message from one core to another
// and back through a pair of rings, as the NIC core → worker → NIC core hop.
#include <rte_cycles.h>
#include <rte_launch.h>
#include <rte_ring.h>

#include <atomic>
#include <memory>

#include "nanopu/loadgen.h"
#include "bench/e2e/measurements.h"
#include "bench/e2e/spsc_ring.h"
#include "lib/contract/thread_fifos.h"

namespace nanopu::bench {
namespace {

constexpr uint32_t kRingSize = 1024;
constexpr uint32_t kPipelineDepth = 64;

// One pair of rings (out: main → echo; back: echo → main) of each kind, with
// the same four operations.
struct NanopuPair {
  ThreadFifos f;
  uint64_t delivered = 0;
  bool send(void* p) {  // NIC core: deliver into the thread's RX FIFO
    if (!f.rx.push(static_cast<rte_mbuf*>(p))) return false;
    f.nic[0].count_delivered(1);
    return true;
  }
  void* take_back() {  // NIC core: gather from the TX FIFO, read the credit
    rte_mbuf* m = f.tx[0].pop();
    if (m != nullptr) (void)f.outstanding();
    return m;
  }
  void* take() { return f.rx.pop(); }  // worker: read the message
  bool give_back(void* p) {            // worker: write the reply, msg_done
    if (!f.tx[0].push(static_cast<rte_mbuf*>(p))) return false;
    f.done.fetch_add(1, std::memory_order_release);
    return true;
  }
};
struct RteRingPair {
  rte_ring* out = nullptr;
  rte_ring* back = nullptr;
  bool send(void* p) { return rte_ring_sp_enqueue(out, p) == 0; }
  void* take_back() { return dequeue(back); }
  void* take() { return dequeue(out); }
  bool give_back(void* p) { return rte_ring_sp_enqueue(back, p) == 0; }
  static void* dequeue(rte_ring* r) {
    void* p = nullptr;
    return rte_ring_sc_dequeue(r, &p) == 0 ? p : nullptr;
  }
};
struct SpscPair {
  SpscRing out{kRingSize};
  SpscRing back{kRingSize};
  bool send(void* p) { return out.push(p); }
  void* take_back() { return back.pop(); }
  void* take() { return out.pop(); }
  bool give_back(void* p) { return back.push(p); }
};

template <class Pair>
struct Echo {
  Pair* pair;
  std::atomic<bool> stop{false};
};
template <class Pair>
int echo_main(void* arg) {
  auto* e = static_cast<Echo<Pair>*>(arg);
  while (!e->stop.load(std::memory_order_relaxed)) {
    void* p = e->pair->take();
    if (p != nullptr)
      while (!e->pair->give_back(p)) {
      }
  }
  return 0;
}

template <class Pair>
void run(Pair* pair, const RunOptions& o, ChildResult* r) {
  Echo<Pair> echo{pair};
  if (rte_eal_remote_launch(echo_main<Pair>, &echo, 1) != 0) return r->fail("cannot launch lcore 1");
  const double ns_per_tsc = 1e9 / static_cast<double>(rte_get_tsc_hz());
  auto* token = reinterpret_cast<void*>(uintptr_t{64});
  // Ping-pong: one message in flight; half the round trip is one hop.
  loadgen::Histogram rtt;
  const uint64_t samples = o.rtt_samples;
  for (uint64_t i = 0; i < samples + 1000; ++i) {
    const uint64_t t0 = rte_rdtsc();
    (void)pair->send(token);
    while (pair->take_back() == nullptr) {
    }
    if (i >= 1000) rtt.record(static_cast<uint64_t>(static_cast<double>(rte_rdtsc() - t0) * ns_per_tsc));
  }
  // Pipelined: up to kPipelineDepth in flight, messages per second round trip.
  const uint64_t n = samples * 10;
  uint64_t sent = 0, back = 0;
  const uint64_t t0 = rte_rdtsc();
  while (back < n) {
    while (sent < n && sent - back < kPipelineDepth && pair->send(token)) ++sent;
    while (pair->take_back() != nullptr) ++back;
  }
  const double secs = static_cast<double>(rte_rdtsc() - t0) * ns_per_tsc * 1e-9;
  echo.stop.store(true);
  rte_eal_mp_wait_lcore();
  r->v[0] = static_cast<double>(rtt.quantile(0.5)) / 2;
  r->v[1] = static_cast<double>(rtt.quantile(0.99)) / 2;
  r->v[2] = static_cast<double>(n) / secs;
  r->count = samples;
}

}  // namespace

ChildResult measure_hop(const std::string& kind, const RunOptions& o) {
  ChildResult r;
  if (absl::Status s = init_child_eal({0, 1}, {}); !s.ok()) {
    r.fail(std::string(s.message()));
    return r;
  }
  if (kind == "nanopu") {
    auto pair = std::make_unique<NanopuPair>();
    absl::StatusOr<MsgFifo> rx = MsgFifo::create("hop_rx", kRingSize - 1);
    absl::StatusOr<MsgFifo> tx = MsgFifo::create("hop_tx", kRingSize - 1);
    if (!rx.ok() || !tx.ok()) {
      r.fail("cannot create the FIFOs");
      return r;
    }
    pair->f.rx = std::move(*rx);
    pair->f.tx[0] = std::move(*tx);
    run(pair.get(), o, &r);
  } else if (kind == "rte_ring") {
    RteRingPair pair;
    const unsigned flags = RING_F_SP_ENQ | RING_F_SC_DEQ;
    pair.out = rte_ring_create("hop_out", kRingSize, SOCKET_ID_ANY, flags);
    pair.back = rte_ring_create("hop_back", kRingSize, SOCKET_ID_ANY, flags);
    if (pair.out == nullptr || pair.back == nullptr) {
      r.fail("cannot create the rings");
      return r;
    }
    run(&pair, o, &r);
  } else if (kind == "spsc") {
    auto pair = std::make_unique<SpscPair>();
    run(pair.get(), o, &r);
  } else {
    r.fail("unknown hop kind " + kind);
  }
  return r;
}

}  // namespace nanopu::bench
