// Raw DPDK references for the end-to-end benchmarks, measured on the same
// PMD in the same run as nanopu: testpmd's io-forward loop (every packet
// received goes straight back out) and a ping-pong client.
#pragma once

#include <rte_mbuf.h>

#include <atomic>
#include <cstdint>

#include "apps/loadgen/histogram.h"
#include "bench/e2e/request_peer.h"

namespace nanopu::bench {

// Until stop: rx_burst → tx_burst on one port (what the port refuses is
// retried, never dropped). Counts forwarded packets.
void run_io_forward(uint16_t port, const std::atomic<bool>& stop, std::atomic<uint64_t>* forwarded);

// Drives a RequestPeer on `port` from the calling lcore until stop or the
// TSC passes deadline_tsc: receive, let the peer absorb, fill fresh mbufs
// from pool, send.
void run_peer(uint16_t port, rte_mempool* pool, RequestPeer* peer, const std::atomic<bool>& stop,
              uint64_t deadline_tsc);

// Sends one frame of frame_bytes, busy-waits for a frame back, records the
// round trip in ns; `samples` times (after `warmup` unrecorded ones). False
// if a frame did not come back within a second or stop was set.
bool run_ping_pong(uint16_t port, rte_mempool* pool, uint16_t frame_bytes, uint64_t warmup,
                   uint64_t samples, apps::Histogram* rtt_ns, const std::atomic<bool>& stop);

}  // namespace nanopu::bench
