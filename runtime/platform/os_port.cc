#include "runtime/platform/os_port.h"

#include <rte_dev.h>
#include <rte_ethdev.h>

#include <cstring>

#include "absl/strings/str_cat.h"
#include "lib/base/log.h"

namespace nanopu {

absl::StatusOr<std::unique_ptr<OsPort>> OsPort::open(const std::string& devargs, const Port& host,
                                                     const std::string& name_tag) {
  const std::string name = devargs.substr(0, devargs.find(','));
  const auto bad = [&](const std::string& why) {
    return absl::InvalidArgumentError(absl::StrCat("--os_port=", devargs, ": ", why));
  };
  if (name.empty()) return bad("no device name (e.g. net_tap0,iface=np0)");
  if (int rc = rte_dev_probe(devargs.c_str()); rc != 0)
    return bad(absl::StrCat("DPDK could not create the device (", rte_strerror(-rc),
                            "; its PMD's line above says why)"));
  uint16_t id = 0;
  if (rte_eth_dev_get_port_by_name(name.c_str(), &id) != 0)
    return bad("the device is not an Ethernet port");
  PortParams p;
  p.port_id = id;
  p.mbufs = 2047;  // the kernel's frames out; the fast path's own pool is the host's
  p.rx_interrupts =
      true;  // an idle adaptive NIC core wakes for the OS's frames too (net_tap has them)
  absl::StatusOr<std::unique_ptr<Port>> port = Port::open(p, name_tag + "os");
  if (!port.ok()) return bad(std::string(port.status().message()));
  rte_ether_addr mac{};
  std::memcpy(mac.addr_bytes, host.mac().data(), 6);
  if (int rc = rte_eth_dev_default_mac_addr_set(id, &mac); rc != 0)
    NANOPU_LOG(
        kWarning,
        "--os_port=%s: its MAC could not be set to the port's (%s): set the kernel interface's "
        "by hand, or the kernel answers ARP with another",
        devargs.c_str(), rte_strerror(-rc));
  return std::unique_ptr<OsPort>(new OsPort(std::move(*port)));
}

}  // namespace nanopu
