// The end-to-end measurements of nanopu-bench-e2e. Each function runs in a
// child process (bench/e2e/child.h) and returns its numbers in a ChildResult;
// the layout of v[] is given beside each.
#pragma once

#include <cstdint>
#include <string>

#include "bench/e2e/child.h"

namespace nanopu::bench {

inline constexpr uint32_t kServerIp = 0x0a000001;
inline constexpr uint32_t kClientIp = 0x0a000002;
inline constexpr uint16_t kServerContext = 1;
inline constexpr uint16_t kClientContext = 2;

enum class Pmd : uint8_t { kNull, kRing, kMemif };
[[nodiscard]] const char* pmd_name(Pmd p);

struct RunOptions {
  double warmup_s = 0.3;
  double seconds = 2;          // measured interval of a rate run
  uint32_t window = 128;       // requests in flight (rate runs)
  uint16_t peer_incarnation = 1;  // rate runs: 0 plays a prototype peer (PeerParams)
  uint64_t rtt_samples = 100000;
  bool register_path = true;   // rate runs: small messages in their FIFO entries (Config::register_path)
  std::string memif_dir = "/tmp";  // where memif sockets go
};

// NIC-core message rate, single-packet 64-byte echo requests from a raw
// RequestPeer. nanopu: peer → [pipeline → transport → core select → FIFO →
// echo fiber → FIFO → packetize] on lcore 1, one lcore for NIC and worker.
// Raw: the same peer against an io-forward loop on lcore 1.
// On net_null the peer lives in the port's RX/TX callbacks on lcore 1 (the
// null PMD has no far end); on net_ring it runs on lcore 0.
// nic_cores > 1 (net_null, nanopu only): that many NIC cores, each with a
// queue of its own and a peer it owns in that queue's callbacks; the second
// on CPU 0 beside the worker (docs/design.md §7).
// v[0] replies/s, v[1] seconds measured.
[[nodiscard]] ChildResult measure_rate(Pmd pmd, bool nanopu, const RunOptions& o,
                                       uint32_t nic_cores = 1);

// Round trip of one 64-byte message, one in flight. nanopu: a load-generator
// thread on one host, an echo thread on the other (each host one lcore).
// Raw: a ping-pong client against io-forward, same frame size. net_ring: one
// process, hosts on lcores 0 and 1; net_memif: two processes.
// v[0] p50, v[1] p99, v[2] p99.9, v[3] mean, v[4] min (ns); count samples;
// the host's noise on the client's loop (nanopu/host_noise.h): v[5] stalled
// share, v[6] stalls > 50 us, v[7] the longest (ns), v[8] the share of
// requests that met one.
[[nodiscard]] ChildResult measure_rtt(Pmd pmd, bool nanopu, const RunOptions& o);

// nanopu-to-nanopu closed-loop message rate over net_ring: `workers` emulated
// worker cores (one echo thread each, one context, JBSQ) on the server's
// lcore, messages of msg_bytes. v[0] messages/s, v[1] seconds.
[[nodiscard]] ChildResult measure_scaling(uint32_t workers, uint32_t msg_bytes, const RunOptions& o);

// One-way hop between two cores through the message FIFO, as a ping-pong.
// kind: "nanopu" (MsgFifo pair with the JBSQ credit update of msg_done),
// "rte_ring" (bare SP/SC rte_ring pair), "spsc" (bare hand-written ring).
// v[0] p50 hop ns, v[1] p99 hop ns, v[2] pipelined messages/s one way.
[[nodiscard]] ChildResult measure_hop(const std::string& kind, const RunOptions& o);

// Fiber switches (resume + suspend = 2): v[0] nanopu's sched::Fiber ns per
// switch, v[1] bare Boost.Context. Needs no EAL (rte_get_tsc_hz works
// without one: it calibrates on first use).
[[nodiscard]] ChildResult measure_fiber_switch(uint64_t switches);

}  // namespace nanopu::bench
