// Packet capture: every frame a set of ports receives or sends, written to
// one pcapng file that Wireshark, tshark and DPDK's own net_pcap PMD read.
//
// Kept library: DPDK's rte_pcapng formats the blocks (interface per port,
// direction flag, nanosecond timestamps from the TSC). RX/TX callbacks on the
// ports feed it from the polling core itself, so nothing else must run
// beside the host (rte_pdump would need a secondary process and the EAL's
// shared config, which nanopu's --in-memory EAL does not keep).
//
// Cost: a copy of each frame and one write(2) per burst on the polling core.
// Capture is for debugging; do not benchmark with it on.
#pragma once

#include <rte_ethdev.h>
#include <rte_mempool.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

struct rte_pcapng;  // rte_pcapng.h, kept out of this header (experimental API)

namespace nanopu {

class Capture {
 public:
  // Starts capturing every frame of `ports` (already started) into `path`
  // (created or truncated). snap_bytes: the most bytes kept of each frame
  // (0: all of it).
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<Capture>> start(
      const std::string& path, const std::vector<uint16_t>& ports, uint32_t snap_bytes);
  // Removes the callbacks and closes the file. The ports must no longer be
  // polled (DPDK frees nothing a callback may still be running).
  ~Capture();
  Capture(const Capture&) = delete;
  Capture& operator=(const Capture&) = delete;

  [[nodiscard]] const std::string& path() const { return path_; }
  // Frames written, and frames lost (no copy buffer, or the write failed).
  [[nodiscard]] uint64_t written() const { return written_.load(std::memory_order_relaxed); }
  [[nodiscard]] uint64_t lost() const { return lost_.load(std::memory_order_relaxed); }
  // Both counters by name, as NicCounters::for_each (print_counters).
  template <typename Fn>
  void for_each(Fn&& fn) const {
    fn(std::string_view("written"), written());
    fn(std::string_view("lost"), lost());
  }

 private:
  struct Hook {
    Capture* capture = nullptr;
    uint16_t port = 0;
    const rte_eth_rxtx_callback* rx = nullptr;
    const rte_eth_rxtx_callback* tx = nullptr;
  };
  Capture() = default;
  void record(uint16_t port, rte_mbuf* const* pkts, uint16_t n, bool outbound);
  static uint16_t on_rx(uint16_t port, uint16_t queue, rte_mbuf** pkts, uint16_t n, uint16_t max,
                        void* arg);
  static uint16_t on_tx(uint16_t port, uint16_t queue, rte_mbuf** pkts, uint16_t n, void* arg);

  std::string path_;
  int fd_ = -1;
  ::rte_pcapng* writer_ = nullptr;
  rte_mempool* pool_ = nullptr;
  uint32_t snap_bytes_ = UINT32_MAX;
  std::vector<std::unique_ptr<Hook>> hooks_;
  uint64_t start_ns_ = 0;
  // Written by the polling core(s), read at exit and by telemetry.
  std::atomic<uint64_t> written_{0};
  std::atomic<uint64_t> lost_{0};
};

}  // namespace nanopu
