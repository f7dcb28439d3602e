// One DPDK port with one RX and one TX queue and the mempool every message
// buffer of this host comes from (with MsgMeta in each mbuf's private area).
#pragma once

#include <rte_mempool.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "nanopu/policies.h"
#include "nic/link/packet_io.h"
#include "lib/wire/frame.h"

namespace nanopu {

// What a port needs of a host's configuration.
struct PortParams {
  // kUring: no DPDK port; a UDP socket at ip:udp_port (runtime/platform/uring_port.h).
  Backend backend = Backend::kDpdk;
  uint32_t ip = 0;
  uint16_t udp_port = 9099;
  bool uring_sqpoll = false;
  uint16_t port_index = 0;  // which DPDK port, in probe order
  int32_t port_id = -1;     // >= 0: this DPDK port id instead
  uint32_t mbufs = 16383;   // the pool every message buffer of the host comes from
  uint16_t rx_descriptors = 1024;
  uint16_t tx_descriptors = 1024;
  double start_retry_s = 0;  // keep trying to start a refused memif client this long
  bool rx_interrupts = false;  // configure RX-queue interrupts (adaptive polling), if the PMD has them
  // Queue pairs: one TX queue per NIC core (each sends on its own), and as
  // many RX queues as the PMD has, up to this (Config::nic_lcores).
  uint16_t queues = 1;
  std::vector<std::string> vdevs;  // the --vdev the EAL was given, to name the one it rejected
};

class UringPort;

class Port {
 public:
  // Opens the port at `index` in probe order. name_tag keeps the mempool name
  // unique when one process runs several hosts (tests).
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<Port>> open(const PortParams& params,
                                                                 const std::string& name_tag);
  // No device: frames go through `io` (not owned; it outlives the port),
  // named `driver` in the counters. Only the pool is made here (nanopu-sim's
  // modelled links, docs/design.md §11).
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<Port>> open_external(const PortParams& params, PacketIo* io,
                                                                          std::string driver,
                                                                          const std::string& name_tag);
  ~Port();
  Port(const Port&) = delete;
  Port& operator=(const Port&) = delete;

  // The DPDK port id (kDpdk only: a uring port has none).
  [[nodiscard]] uint16_t id() const { return id_; }
  [[nodiscard]] Backend backend() const { return uring_ ? Backend::kUring : Backend::kDpdk; }
  // A DPDK device behind it (not a socket, not an external PacketIo).
  [[nodiscard]] bool has_device() const { return uring_ == nullptr && external_ == nullptr; }
  // Where the NIC core takes and sends frames: null for a DPDK port (the NIC
  // core drives queue 0 of id() itself), the socket for kUring, or the
  // external PacketIo.
  [[nodiscard]] PacketIo* io() const;
  [[nodiscard]] const UringPort* uring() const { return uring_.get(); }
  [[nodiscard]] rte_mempool* pool() const { return pool_; }
  [[nodiscard]] const wire::MacAddr& mac() const { return mac_; }
  [[nodiscard]] const std::string& driver() const { return driver_; }
  // Whether the port transmits an indirect mbuf (a clone) correctly. DPDK
  // 22.11's net_af_xdp does not: its zero-copy TX takes the frame's UMEM
  // address from the mbuf's own address and its data pointer, which for a
  // clone points into another mbuf's buffer — the frame sent is garbage.
  [[nodiscard]] bool sends_indirect_mbufs() const { return driver_ != "net_af_xdp"; }
  // Whether the port may be handed the very mbuf a sender keeps for
  // retransmission (one more reference; packet_for_port): it only reads
  // the frame and lets go of it, and never passes the mbuf itself on. An
  // allow-list: net_memif (not zero-copy=yes), net_af_packet, net_null,
  // net_tap and net_pcap copy it out; io_uring sends from it and frees it
  // when the send completes. net_ring gives it to the receiving host, which
  // adjusts and chains it; a modelled link's PacketIo may do the same; a
  // NIC PMD may free TX mbufs without their reference count.
  [[nodiscard]] bool takes_kept_packets() const { return takes_kept_; }
  // Whether the port must be restarted to reconnect after its peer went
  // away: a role=client memif (DPDK connects it only in rte_eth_dev_start).
  [[nodiscard]] bool reconnects() const { return reconnects_; }
  // The kernel interface behind a net_af_packet port ("" otherwise): its
  // carrier is the link (the PMD reports up from start to stop).
  [[nodiscard]] const std::string& kernel_iface() const { return kernel_iface_; }
  // Waits up to `seconds` (infinity: without limit) for the link; false if
  // it did not come up, or `stop` said to give up. A port that reconnects()
  // is restarted each second without link: its first connection may have
  // been dropped by the server before the link came up, and DPDK 22.11
  // does not connect it again by itself.
  [[nodiscard]] bool wait_link_up(double seconds, absl::FunctionRef<bool()> stop);
  // It waits for peers to come (a memif role=server) rather than reaching out.
  [[nodiscard]] bool listens() const { return listens_; }
  // RX queues configured (PortParams::queues, or fewer: the PMD's most).
  [[nodiscard]] uint16_t rx_queues() const { return rx_queues_; }
  // Whether the port checks each received frame's IPv4 header checksum and
  // says so in its flags (RX checksum offload, enabled wherever the PMD
  // offers it: net_tap, most NICs), so the NIC core need not sum it.
  [[nodiscard]] bool checks_ipv4_checksums() const { return checks_ipv4_; }

 private:
  Port() = default;
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<Port>> open_uring(const PortParams& params,
                                                                       const std::string& name_tag);
  uint16_t id_ = 0;
  uint16_t rx_queues_ = 1;
  rte_mempool* pool_ = nullptr;
  wire::MacAddr mac_{};
  std::string driver_;
  bool takes_kept_ = false;  // takes_kept_packets()
  bool checks_ipv4_ = false;  // checks_ipv4_checksums()
  bool reconnects_ = false;
  bool listens_ = false;
  std::string kernel_iface_;
  bool started_ = false;
  std::unique_ptr<UringPort> uring_;
  PacketIo* external_ = nullptr;
};

// Ports in probe order, for error messages ("port 1 of 1: net_ring0").
[[nodiscard]] std::string describe_ports();

}  // namespace nanopu
