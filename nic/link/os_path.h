// The usual DMA path to the host's OS (nanoPU (OSDI'21) §2, Figure 1: a
// message the fast path's match-action table does not claim "takes the
// usual DMA processing path" to the operating system). Here an exception
// port the kernel owns — a TAP or virtio-user device (Config::os_port),
// DPDK's exception-path idiom — takes the frames the pipeline does not
// claim (not NDP or Homa: ARP, ICMP, TCP, other UDP), and what the kernel
// sends goes out of the host's port: ARP, ping and SSH work beside the fast
// path on one NIC. One NIC core drives it (Config refuses several); an idle
// adaptive one is woken by the OS port's RX interrupt too.
#pragma once

#include <rte_mbuf.h>

#include <cstdint>

#include "nanopu/stats.h"
#include "nic/link/packet_io.h"

namespace nanopu {

class OsPath {
 public:
  // os: the exception port's queue (not owned); null: no OS path.
  OsPath(PacketIo* os, NicCounters* counters) : os_(os), counters_(counters) {}
  ~OsPath();
  OsPath(const OsPath&) = delete;
  OsPath& operator=(const OsPath&) = delete;

  [[nodiscard]] bool active() const { return os_ != nullptr; }
  // A frame for the OS, handed over at flush().
  void to_os(rte_mbuf* m) {
    if (n_ == kBurst) flush();
    out_[n_++] = m;
  }
  // What the OS port does not take is dropped, counted.
  void flush();
  // Up to n of the OS's frames, to send out of the host's port.
  uint16_t from_os(rte_mbuf** frames, uint16_t n);
  // Whether the OS has frames to send: an idle NIC core's last look before
  // it sleeps. What it finds is kept for from_os().
  [[nodiscard]] bool has_frames();

 private:
  static constexpr uint16_t kBurst = 32;
  PacketIo* os_;
  NicCounters* counters_;
  rte_mbuf* out_[kBurst];
  uint16_t n_ = 0;
  rte_mbuf* in_[kBurst];  // found by has_frames(), not yet taken
  uint16_t in_n_ = 0;
};

}  // namespace nanopu
