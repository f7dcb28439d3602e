// Raw DPDK references for the end-to-end benchmarks, measured on the same
// PMD in the same run as nanopu: testpmd's io-forward loop (every packet
// received goes straight back out) and a ping-pong client.
#pragma once

#include <rte_mbuf.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "nanopu/host_noise.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "nanopu/loadgen.h"
#include "bench/e2e/request_peer.h"
#include "runtime/platform/port.h"

namespace nanopu::bench {

// Opens DPDK port port_id for raw use from `lcore`, with the same queue and
// pool set-up as a nanopu host's (runtime/platform/port.h); tag names its pool.
[[nodiscard]] absl::StatusOr<std::unique_ptr<Port>> open_raw_port(uint16_t port_id, unsigned lcore,
                                                                  const std::string& tag);

// Until stop: rx_burst → tx_burst on one port (what the port refuses is
// retried, never dropped). Counts forwarded packets.
void run_io_forward(uint16_t port, const std::atomic<bool>& stop, std::atomic<uint64_t>* forwarded);

// run_io_forward on another lcore, from launch() to stop().
class IoForwarder {
 public:
  IoForwarder() = default;
  IoForwarder(const IoForwarder&) = delete;
  IoForwarder& operator=(const IoForwarder&) = delete;
  ~IoForwarder() { stop(); }
  [[nodiscard]] absl::Status launch(uint16_t port, unsigned lcore);
  void stop();

 private:
  static int main(void* self);
  uint16_t port_ = 0;
  int lcore_ = -1;  // -1: not running
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> forwarded_{0};
};

// Drives a RequestPeer on `port` from the calling lcore until stop or the
// TSC passes deadline_tsc: receive, let the peer absorb, fill fresh mbufs
// from pool, send.
void run_peer(uint16_t port, rte_mempool* pool, RequestPeer* peer, const std::atomic<bool>& stop,
              uint64_t deadline_tsc);

// Sends one frame of frame_bytes, busy-waits for a frame back, records the
// round trip in ns; `samples` times (after `warmup` unrecorded ones). False
// if a frame did not come back within a second or stop was set. Its wait
// for each frame back is watched for the host's stalls (*noise).
bool run_ping_pong(uint16_t port, rte_mempool* pool, uint16_t frame_bytes, uint64_t warmup,
                   uint64_t samples, loadgen::Histogram* rtt_ns, const std::atomic<bool>& stop,
                   HostNoise* noise);

}  // namespace nanopu::bench
