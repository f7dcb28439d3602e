// measure_rtt (bench/e2e/measurements.h): nanopu-to-nanopu round trip beside
// a raw DPDK ping-pong, in one process (net_ring) or two (net_memif).
#include <rte_cycles.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <memory>

#include "absl/strings/str_cat.h"
#include "tools/loadgen/loadgen.h"
#include "bench/e2e/measurements.h"
#include "bench/e2e/raw_endpoints.h"
#include "bench/e2e/server_host.h"
#include "runtime/platform/port.h"
#include "runtime/platform/ring_port.h"

namespace nanopu::bench {
namespace {

constexpr uint16_t kPayloadBytes = 64;
constexpr uint16_t kFrameBytes = 64 + kPayloadBytes;  // header + payload, as nanopu sends it
constexpr uint64_t kRawWarmup = 1000;

std::atomic<bool> g_stop{false};
void on_term(int) { g_stop.store(true); }

// After fill_latency: the share of requests that met a stall needs the load.
void fill_noise(const HostNoise& n, const loadgen::Histogram& h, double elapsed_s, ChildResult* r) {
  r->v[5] = n.stalled_share();
  r->v[6] = static_cast<double>(n.over_50us);
  r->v[7] = static_cast<double>(n.longest_ns);
  r->v[8] = stalled_request_share(n, {.requests = h.count(), .elapsed_s = elapsed_s, .mean_latency_ns = h.mean()});
}

void fill_latency(const loadgen::Histogram& h, ChildResult* r) {
  r->v[0] = static_cast<double>(h.quantile(0.5));
  r->v[1] = static_cast<double>(h.quantile(0.99));
  r->v[2] = static_cast<double>(h.quantile(0.999));
  r->v[3] = h.mean();
  r->v[4] = static_cast<double>(h.min());
  r->count = h.count();
}

Config client_config(int32_t port_id, double link_wait_s) {
  Config c;
  c.poll = nanopu::PollMode::kBusy;  // benchmarks poll: a core per poller
  c.lcores = {0};
  c.port_id = port_id;
  c.ip = kClientIp;
  c.link_wait_s = link_wait_s;
  return c;
}

// The nanopu client: a load generator thread, one 64-byte request in flight.
// The host is left in *keep (if given) for the caller to release.
void nanopu_client(const Config& c, const RunOptions& o, ChildResult* r,
                   std::unique_ptr<Runtime>* keep = nullptr) {
  absl::StatusOr<std::unique_ptr<Runtime>> rt = Runtime::create(c);
  if (!rt.ok()) return r->fail(std::string(rt.status().message()));
  struct Keep {
    std::unique_ptr<Runtime>& rt;
    std::unique_ptr<Runtime>* to;
    ~Keep() {
      if (to != nullptr) *to = std::move(rt);
    }
  } keep_it{*rt, keep};
  apps::LoadGenOptions lo;
  lo.server_ip = kServerIp;
  lo.server_context = kServerContext;
  lo.context = kClientContext;
  lo.msg_bytes = kPayloadBytes;
  lo.outstanding = 1;
  lo.count = o.rtt_samples;
  lo.progress = false;
  lo.drain_timeout_s = 10;  // a smoke run beside a hog can lose its CPU past the default 1 s
  apps::LoadGenResult res;
  absl::StatusOr<Thread*> t = (*rt)->spawn([&](Thread& th) { apps::run_loadgen(th, lo, &res); });
  if (!t.ok()) return r->fail(std::string(t.status().message()));
  if (absl::Status s = (*rt)->run(); !s.ok()) return r->fail(std::string(s.message()));
  if (!res.error.empty()) return r->fail(res.error);
  if (res.lost != 0 || res.bad_replies != 0)
    return r->fail(absl::StrCat(res.lost, " requests lost, ", res.bad_replies, " bad replies"));
  fill_latency(res.latency_ns, r);
  fill_noise((*rt)->host_noise(), res.latency_ns, res.elapsed_s, r);
}

void raw_client(uint16_t port_id, double link_wait_s, const RunOptions& o, ChildResult* r) {
  absl::StatusOr<std::unique_ptr<Port>> p = open_raw_port(port_id, 0, "pp");
  if (!p.ok()) return r->fail(std::string(p.status().message()));
  if (!(*p)->wait_link_up(link_wait_s, [] { return g_stop.load(std::memory_order_relaxed); })) return r->fail("link did not come up");
  loadgen::Histogram h;
  HostNoise n;
  const uint64_t t0 = rte_rdtsc();
  if (!run_ping_pong((*p)->id(), (*p)->pool(), kFrameBytes, kRawWarmup, o.rtt_samples, &h, g_stop, &n))
    return r->fail("a ping-pong frame did not come back within 1 s");
  fill_latency(h, r);
  fill_noise(n, h, static_cast<double>(rte_rdtsc() - t0) / static_cast<double>(rte_get_tsc_hz()), r);
}

ChildResult rtt_in_one_process(bool nanopu, const RunOptions& o) {
  ChildResult r;
  if (absl::Status s = init_child_eal({0, 1}, {}); !s.ok()) {
    r.fail(std::string(s.message()));
    return r;
  }
  absl::StatusOr<RingPortPair> pair = make_ring_port_pair("rtt");
  if (!pair.ok()) {
    r.fail(std::string(pair.status().message()));
    return r;
  }
  if (nanopu) {
    absl::StatusOr<std::unique_ptr<ServerHost>> s = ServerHost::start(server_config(pair->a, 1), 1);
    if (!s.ok()) {
      r.fail(std::string(s.status().message()));
      return r;
    }
    if (absl::Status st = (*s)->launch(); !st.ok()) {
      r.fail(std::string(st.message()));
      return r;
    }
    std::unique_ptr<Runtime> client;
    nanopu_client(client_config(pair->b, 0), o, &r, &client);
    (*s)->stop();
    (*s)->print_stages("rtt net_ring, the echo server");
    // The hosts hold each other's buffers (net_ring): both let go first.
    if (client) client->release_buffers();
    (*s)->runtime().release_buffers();
    return r;
  }
  absl::StatusOr<std::unique_ptr<Port>> p = open_raw_port(pair->a, 1, "fwd");
  if (!p.ok()) {
    r.fail(std::string(p.status().message()));
    return r;
  }
  IoForwarder fwd;
  if (absl::Status st = fwd.launch((*p)->id(), 1); !st.ok()) {
    r.fail(std::string(st.message()));
    return r;
  }
  raw_client(pair->b, 0, o, &r);
  fwd.stop();
  return r;
}

// The server process of a two-process run: until SIGTERM.
void memif_server(bool nanopu, const std::string& vdev, const ReadyFn& ready) {
  if (!init_child_eal({1}, {vdev}).ok()) return;
  signal(SIGTERM, on_term);
  if (nanopu) {
    absl::StatusOr<std::unique_ptr<ServerHost>> s = ServerHost::start(server_config(0, 1), 1);
    if (!s.ok()) return;
    Runtime::install_signal_handlers();
    ready();
    (void)(*s)->run_here();
    (*s)->print_stages("rtt net_memif, the echo server");
    return;
  }
  absl::StatusOr<std::unique_ptr<Port>> p = open_raw_port(0, 1, "fwd");
  if (!p.ok()) return;
  ready();
  std::atomic<uint64_t> forwarded{0};
  run_io_forward((*p)->id(), g_stop, &forwarded);
}

}  // namespace

ChildResult measure_rtt(Pmd pmd, bool nanopu, const RunOptions& o) {
  ChildResult r;
  const double timeout_s = 60 + static_cast<double>(o.rtt_samples) * 1e-4;
  if (pmd == Pmd::kRing) {
    absl::StatusOr<ChildResult> c = run_in_child([&] { return rtt_in_one_process(nanopu, o); }, timeout_s);
    if (!c.ok()) r.fail(std::string(c.status().message()));
    return c.ok() ? *c : r;
  }
  if (pmd != Pmd::kMemif) {
    r.fail("round trips are measured on net_ring and net_memif");
    return r;
  }
  const std::string sock = absl::StrCat(o.memif_dir, "/nanopu-e2e-", getpid(), ".sock");
  unlink(sock.c_str());
  absl::StatusOr<pid_t> server = start_child(
      [&](const ReadyFn& ready) {
        memif_server(nanopu, "net_memif0,role=server,socket=" + sock, ready);
      },
      60);
  if (!server.ok()) {
    r.fail(std::string(server.status().message()));
    return r;
  }
  absl::StatusOr<ChildResult> c = run_in_child(
      [&] {
        ChildResult cr;
        if (absl::Status s = init_child_eal({0}, {"net_memif0,role=client,socket=" + sock}); !s.ok()) {
          cr.fail(std::string(s.message()));
          return cr;
        }
        if (nanopu) nanopu_client(client_config(0, 10), o, &cr);
        else raw_client(0, 10, o, &cr);
        return cr;
      },
      timeout_s);
  stop_child(*server);
  unlink(sock.c_str());
  if (!c.ok()) r.fail(std::string(c.status().message()));
  return c.ok() ? *c : r;
}

}  // namespace nanopu::bench
