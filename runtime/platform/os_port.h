// The host OS's exception port (Config::os_port; the NIC core's side is
// nic/link/os_path.h): a DPDK device the kernel owns — net_tap's TAP
// interface, or virtio-user's — probed when the host opens, its MAC set to
// the host port's, so that what the kernel answers (ARP) names the port
// the fast path receives on.
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "nic/link/packet_io.h"
#include "runtime/platform/port.h"

namespace nanopu {

class OsPort {
 public:
  // devargs: a DPDK device's, e.g. "net_tap0,iface=np0". Errors name it.
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<OsPort>> open(const std::string& devargs,
                                                                    const Port& host,
                                                                    const std::string& name_tag);
  [[nodiscard]] PacketIo* io() { return &io_; }
  [[nodiscard]] uint16_t id() const { return port_->id(); }

 private:
  explicit OsPort(std::unique_ptr<Port> port) : port_(std::move(port)), io_(port_->id()) {}
  std::unique_ptr<Port> port_;
  EthdevIo io_;
};

}  // namespace nanopu
