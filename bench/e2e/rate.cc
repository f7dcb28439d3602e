// measure_rate and measure_scaling (bench/e2e/measurements.h).
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <memory>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "apps/loopback/loopback.h"
#include "bench/e2e/measurements.h"
#include "bench/e2e/raw_endpoints.h"
#include "bench/e2e/request_peer.h"
#include "bench/e2e/server_host.h"
#include "lib/contract/nic_cores.h"
#include "runtime/platform/port.h"
#include "runtime/platform/ring_port.h"

namespace nanopu::bench {
namespace {

uint64_t tsc_in(double s) { return static_cast<uint64_t>(s * static_cast<double>(rte_get_tsc_hz())); }

// RX/TX callbacks that put a RequestPeer on the far side of a net_null port.
// The port is opened with no-rx=1, so its receive allocates nothing: the
// peer allocates just the frames it sends (a PMD that allocated a whole
// burst each poll, most of it freed unused when nanopu's window is short,
// charged nanopu ~150 ns per request that io-forward, with a full window,
// did not pay).
struct NullPeer {
  RequestPeer* peer;
  rte_mempool* pool;
};
uint16_t null_rx(uint16_t, uint16_t, rte_mbuf** pkts, uint16_t n_rx, uint16_t max, void* arg) {
  auto* p = static_cast<NullPeer*>(arg);
  const auto want = static_cast<uint16_t>(std::min<uint32_t>(max - n_rx, p->peer->wanted()));
  if (want == 0 || rte_pktmbuf_alloc_bulk(p->pool, pkts + n_rx, want) != 0) return n_rx;
  const uint16_t used = p->peer->fill(pkts + n_rx, want);
  if (used < want) rte_pktmbuf_free_bulk(pkts + n_rx + used, want - used);
  return static_cast<uint16_t>(n_rx + used);
}
uint16_t null_tx(uint16_t, uint16_t, rte_mbuf** pkts, uint16_t n, void* peer_ptr) {
  static_cast<RequestPeer*>(peer_ptr)->absorb(pkts, n);
  return n;  // the null PMD frees them
}

uint64_t completed(const std::vector<std::unique_ptr<RequestPeer>>& peers) {
  uint64_t c = 0;
  for (const auto& p : peers) c += p->completed();
  return c;
}

// Samples the peers' completed() over the measured interval while others drive them.
void sample_rate(const std::vector<std::unique_ptr<RequestPeer>>& peers, const RunOptions& o,
                 ChildResult* r) {
  usleep(static_cast<useconds_t>(o.warmup_s * 1e6));
  const uint64_t c0 = completed(peers), t0 = rte_rdtsc();
  usleep(static_cast<useconds_t>(o.seconds * 1e6));
  const uint64_t c1 = completed(peers), t1 = rte_rdtsc();
  r->v[1] = static_cast<double>(t1 - t0) / static_cast<double>(rte_get_tsc_hz());
  r->v[0] = static_cast<double>(c1 - c0) / r->v[1];
  r->count = c1 - c0;
}

// Drives the peer on this lcore over warm-up and the measured interval.
void drive_rate(uint16_t port, rte_mempool* pool, RequestPeer* peer, const RunOptions& o,
                ChildResult* r) {
  std::atomic<bool> never{false};
  run_peer(port, pool, peer, never, rte_rdtsc() + tsc_in(o.warmup_s));
  const uint64_t c0 = peer->completed(), t0 = rte_rdtsc();
  run_peer(port, pool, peer, never, t0 + tsc_in(o.seconds));
  const uint64_t c1 = peer->completed(), t1 = rte_rdtsc();
  r->v[1] = static_cast<double>(t1 - t0) / static_cast<double>(rte_get_tsc_hz());
  r->v[0] = static_cast<double>(c1 - c0) / r->v[1];
  r->count = c1 - c0;
}

}  // namespace

ChildResult measure_rate(Pmd pmd, bool nanopu, const RunOptions& o, uint32_t nic_cores) {
  ChildResult r;
  std::vector<std::string> vdevs;
  if (pmd == Pmd::kNull) vdevs.push_back("net_null0,size=128,no-rx=1");
  // net_null: the NIC core has CPU 1 to itself (the peer lives in its port's
  // callbacks) and the echo worker runs on CPU 0 (lcore 2; lcore 0 only
  // samples the counter). net_ring: the peer needs CPU 0, so the NIC loop
  // and the worker share lcore 1. nic_cores = 0 or more (net_null): that
  // many lcores, 1 on CPU 1 and 2 on CPU 0, each running a NIC core and a
  // worker taking turns (0: one such lcore, the reference of the scaling).
  const bool shared_cores = pmd == Pmd::kNull && nanopu && nic_cores != 1;
  const bool dedicated = pmd == Pmd::kNull && nanopu && nic_cores == 1;
  if (nic_cores != 1 && !shared_cores) {
    r.fail("NIC cores sharing lcores: net_null and nanopu only");
    return r;
  }
  if (nic_cores > 2) {
    r.fail("this benchmark places at most 2 NIC cores (one per CPU of a 2-CPU machine)");
    return r;
  }
  if (absl::Status s = dedicated || shared_cores ? init_child_eal({0, 1, 2}, vdevs, "0@0,1@1,2@0")
                                                 : init_child_eal({0, 1}, vdevs);
      !s.ok()) {
    r.fail(std::string(s.message()));
    return r;
  }
  uint16_t server_port = 0, peer_port = 0;
  if (pmd == Pmd::kRing) {
    absl::StatusOr<RingPortPair> pair = make_ring_port_pair("e2e");
    if (!pair.ok()) {
      r.fail(std::string(pair.status().message()));
      return r;
    }
    server_port = pair->a;
    peer_port = pair->b;
  }
  // One peer per NIC core (each in its own queue's callbacks, owned by that
  // core: nic_core_for_peer), the window split between them.
  const uint32_t cores = std::max<uint32_t>(1, nic_cores);
  std::vector<std::unique_ptr<RequestPeer>> peers;
  for (uint32_t k = 0, ip = PeerParams{}.peer_ip; k < cores; ++k) {
    while (nic_core_for_peer(ip, cores) != k) ++ip;
    PeerParams pp;
    pp.peer_ip = ip++;
    pp.window = std::max<uint32_t>(1, o.window / cores);
    pp.server_context = static_cast<uint16_t>(pp.server_context + (cores > 1 ? k : 0));
    pp.incarnation = o.peer_incarnation;
    peers.push_back(std::make_unique<RequestPeer>(pp));
  }
  RequestPeer& peer = *peers[0];

  // lcore 1: the nanopu host, or the io-forward loop.
  std::unique_ptr<ServerHost> server;
  std::unique_ptr<Port> raw_port;
  IoForwarder fwd;
  if (nanopu) {
    Config sc = server_config(server_port, 1);
    sc.register_path = o.register_path;
    if (dedicated) sc.lcores = {1, 2};  // NIC core on lcore 1, the worker on lcore 2
    if (shared_cores) {                 // each lcore a NIC core and a worker
      sc.lcores = nic_cores == 2 ? std::vector<unsigned>{1, 2} : std::vector<unsigned>{1};
      sc.nic_lcores = cores;
    }
    // Several NIC cores: a context per worker, peer k's on NIC core k's
    // lcore (independent flows: what the design scales).
    absl::StatusOr<std::unique_ptr<ServerHost>> s =
        ServerHost::start(sc, shared_cores ? cores : 1, /*context_per_worker=*/shared_cores);
    if (!s.ok()) {
      r.fail(std::string(s.status().message()));
      return r;
    }
    server = std::move(*s);
  } else {
    absl::StatusOr<std::unique_ptr<Port>> p = open_raw_port(server_port, 1, "fwd");
    if (!p.ok()) {
      r.fail(std::string(p.status().message()));
      return r;
    }
    raw_port = std::move(*p);
  }
  std::vector<NullPeer> null_peers;
  for (auto& p : peers) null_peers.push_back({p.get(), nullptr});
  if (pmd == Pmd::kNull) {
    rte_mempool* pool = nullptr;
    // The pool the port receives into (the host's, "np_..."; net_null
    // reports no RX queue info), as the PMD itself would allocate from:
    // frames freed by the port's TX are reused while hot, as with no-rx=0.
    rte_mempool_walk(
        [](rte_mempool* mp, void* arg) {
          auto** found = static_cast<rte_mempool**>(arg);
          if (*found == nullptr && std::string_view(mp->name).starts_with("np_")) *found = mp;
        },
        &pool);
    if (pool == nullptr) {
      r.fail("net_null: no host pool to allocate the peer's frames from");
      return r;
    }
    for (uint16_t q = 0; q < null_peers.size(); ++q) {
      null_peers[q].pool = pool;
      if (rte_eth_add_rx_callback(server_port, q, null_rx, &null_peers[q]) == nullptr ||
          rte_eth_add_tx_callback(server_port, q, null_tx, null_peers[q].peer) == nullptr) {
        r.fail("this DPDK has no RX/TX callbacks (RTE_ETHDEV_RXTX_CALLBACKS)");
        return r;
      }
    }
  }
  if (nanopu) {
    if (absl::Status s = server->launch(); !s.ok()) {
      r.fail(std::string(s.message()));
      return r;
    }
  } else if (absl::Status st = fwd.launch(raw_port->id(), 1); !st.ok()) {
    r.fail(std::string(st.message()));
    return r;
  }

  // The peer's port (and pool) outlives the server: the server holds and
  // polls the peer's buffers until it has stopped.
  std::unique_ptr<Port> peer_owner;
  if (pmd == Pmd::kNull) {
    sample_rate(peers, o, &r);
  } else {
    absl::StatusOr<std::unique_ptr<Port>> p = open_raw_port(peer_port, 0, "peer");
    if (!p.ok()) {
      r.fail(std::string(p.status().message()));
    } else {
      peer_owner = std::move(*p);
      drive_rate(peer_owner->id(), peer_owner->pool(), &peer, o, &r);
    }
  }
  if (server) {
    server->stop();
    server->print_stages(absl::StrCat("rate ", pmd == Pmd::kNull ? "net_null" : "net_ring", ", ",
                                      std::max<uint32_t>(1, nic_cores), " NIC core(s)"));
  }
  fwd.stop();
  if (server) {
    // Every frame that crossed the NIC core, data and control, per request
    // answered (over the whole run: a ratio needs no interval).
    const NicCounters& n = server->runtime().nic_counters();
    if (n.rx_msgs_delivered > 0)
      r.v[2] = static_cast<double>(n.rx_packets + n.tx_data_packets + n.tx_control_packets) /
               static_cast<double>(n.rx_msgs_delivered);
  }
  if (server && getenv("NANOPU_BENCH_STATS") != nullptr) server->runtime().print_stats(stderr);
  if (server) server->runtime().release_buffers();  // before the peer's pool goes
  if (r.ok() && r.count == 0)
    r.fail(absl::StrCat("no replies (peer sent ", peer.sent(), ", foreign frames ", peer.foreign(), ")"));
  return r;
}

}  // namespace nanopu::bench
