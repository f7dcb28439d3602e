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

namespace {

// Where a rate run's parts go (measure_rate): the PMD, nanopu or its
// io-forward reference, and how many NIC cores.
struct RateLayout {
  Pmd pmd;
  bool nanopu;
  uint32_t nic_cores;  // 1: the NIC core alone; 0 or 2: each sharing an lcore with a worker
  // net_null: the NIC core has CPU 1 to itself (the peer lives in its port's
  // callbacks) and the echo worker runs on CPU 0 (lcore 2; lcore 0 only
  // samples the counter). net_ring: the peer needs CPU 0, so the NIC loop
  // and the worker share lcore 1. nic_cores = 0 or more (net_null): that
  // many lcores, 1 on CPU 1 and 2 on CPU 0, each running a NIC core and a
  // worker taking turns (0: one such lcore, the reference of the scaling).
  [[nodiscard]] bool shared_cores() const { return pmd == Pmd::kNull && nanopu && nic_cores != 1; }
  [[nodiscard]] bool dedicated() const { return pmd == Pmd::kNull && nanopu && nic_cores == 1; }
  [[nodiscard]] uint32_t cores() const { return std::max<uint32_t>(1, nic_cores); }
};

// The EAL and, on net_ring, the port pair; false (r failed) if not.
bool start_rate_eal(const RateLayout& l, uint16_t* server_port, uint16_t* peer_port, ChildResult* r) {
  if (l.nic_cores != 1 && !l.shared_cores()) {
    r->fail("NIC cores sharing lcores: net_null and nanopu only");
    return false;
  }
  if (l.nic_cores > 2) {
    r->fail("this benchmark places at most 2 NIC cores (one per CPU of a 2-CPU machine)");
    return false;
  }
  std::vector<std::string> vdevs;
  if (l.pmd == Pmd::kNull) vdevs.push_back("net_null0,size=128,no-rx=1");
  if (absl::Status s = l.dedicated() || l.shared_cores() ? init_child_eal({0, 1, 2}, vdevs, "0@0,1@1,2@0")
                                                         : init_child_eal({0, 1}, vdevs);
      !s.ok()) {
    r->fail(std::string(s.message()));
    return false;
  }
  if (l.pmd == Pmd::kRing) {
    absl::StatusOr<RingPortPair> pair = make_ring_port_pair("e2e");
    if (!pair.ok()) {
      r->fail(std::string(pair.status().message()));
      return false;
    }
    *server_port = pair->a;
    *peer_port = pair->b;
  }
  return true;
}

// One peer per NIC core (each in its own queue's callbacks, owned by that
// core: nic_core_for_peer), the window split between them.
std::vector<std::unique_ptr<RequestPeer>> make_rate_peers(const RateLayout& l, const RunOptions& o) {
  const uint32_t cores = l.cores();
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
  return peers;
}

// The nanopu host on lcore 1 (and 2), not yet launched.
absl::StatusOr<std::unique_ptr<ServerHost>> start_rate_server(const RateLayout& l, const RunOptions& o,
                                                              uint16_t server_port) {
  Config sc = server_config(server_port, 1);
  sc.register_path = o.register_path;
  if (l.dedicated()) sc.lcores = {1, 2};  // NIC core on lcore 1, the worker on lcore 2
  if (l.shared_cores()) {                 // each lcore a NIC core and a worker
    sc.lcores = l.nic_cores == 2 ? std::vector<unsigned>{1, 2} : std::vector<unsigned>{1};
    sc.nic_lcores = l.cores();
  }
  // Several NIC cores: a context per worker, peer k's on NIC core k's
  // lcore (independent flows: what the design scales).
  return ServerHost::start(sc, l.shared_cores() ? l.cores() : 1, /*context_per_worker=*/l.shared_cores());
}

// net_null has no far end: each peer lives in its queue's RX/TX callbacks,
// allocating from the host's pool ("np_..."; net_null reports no RX queue
// info), as the PMD itself would: frames freed by the port's TX are reused
// while hot, as with no-rx=0.
bool attach_null_peers(uint16_t port, std::vector<NullPeer>* peers, ChildResult* r) {
  rte_mempool* pool = nullptr;
  rte_mempool_walk(
      [](rte_mempool* mp, void* arg) {
        auto** found = static_cast<rte_mempool**>(arg);
        if (*found == nullptr && std::string_view(mp->name).starts_with("np_")) *found = mp;
      },
      &pool);
  if (pool == nullptr) {
    r->fail("net_null: no host pool to allocate the peer's frames from");
    return false;
  }
  for (uint16_t q = 0; q < peers->size(); ++q) {
    (*peers)[q].pool = pool;
    if (rte_eth_add_rx_callback(port, q, null_rx, &(*peers)[q]) == nullptr ||
        rte_eth_add_tx_callback(port, q, null_tx, (*peers)[q].peer) == nullptr) {
      r->fail("this DPDK has no RX/TX callbacks (RTE_ETHDEV_RXTX_CALLBACKS)");
      return false;
    }
  }
  return true;
}

// After the run: every frame that crossed the NIC core, data and control,
// per request answered (over the whole run: a ratio needs no interval).
void finish_rate_server(ServerHost& server, const RateLayout& l, ChildResult* r) {
  server.stop();
  server.print_stages(absl::StrCat("rate ", l.pmd == Pmd::kNull ? "net_null" : "net_ring", ", ", l.cores(),
                                   " NIC core(s)"));
  const NicCounters& n = server.runtime().nic_counters();
  if (n.rx_msgs_delivered > 0)
    r->v[2] = static_cast<double>(n.rx_packets + n.tx_data_packets + n.tx_control_packets) /
              static_cast<double>(n.rx_msgs_delivered);
  if (getenv("NANOPU_BENCH_STATS") != nullptr) server.runtime().print_stats(stderr);
  server.runtime().release_buffers();  // before the peer's pool goes
}

}  // namespace

ChildResult measure_rate(Pmd pmd, bool nanopu, const RunOptions& o, uint32_t nic_cores) {
  ChildResult r;
  const RateLayout l{pmd, nanopu, nic_cores};
  uint16_t server_port = 0, peer_port = 0;
  if (!start_rate_eal(l, &server_port, &peer_port, &r)) return r;
  std::vector<std::unique_ptr<RequestPeer>> peers = make_rate_peers(l, o);
  RequestPeer& peer = *peers[0];
  // lcore 1: the nanopu host, or the io-forward loop.
  std::unique_ptr<ServerHost> server;
  std::unique_ptr<Port> raw_port;
  IoForwarder fwd;
  if (nanopu) {
    absl::StatusOr<std::unique_ptr<ServerHost>> s = start_rate_server(l, o, server_port);
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
  if (pmd == Pmd::kNull && !attach_null_peers(server_port, &null_peers, &r)) return r;
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
  } else if (absl::StatusOr<std::unique_ptr<Port>> p = open_raw_port(peer_port, 0, "peer"); !p.ok()) {
    r.fail(std::string(p.status().message()));
  } else {
    peer_owner = std::move(*p);
    drive_rate(peer_owner->id(), peer_owner->pool(), &peer, o, &r);
  }
  fwd.stop();
  if (server) finish_rate_server(*server, l, &r);
  if (r.ok() && r.count == 0)
    r.fail(absl::StrCat("no replies (peer sent ", peer.sent(), ", foreign frames ", peer.foreign(), ")"));
  return r;
}

}  // namespace nanopu::bench
