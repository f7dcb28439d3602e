// The NIC core's view of its port's link. A link that drops is reported once
// per outage (a log line, nic.link_downs); a port that must reconnect by
// itself is restarted until its peer is back (nic.link_restarts).
//
// Why restart: DPDK's memif client (role=client) connects to its server only
// inside rte_eth_dev_start and never again on its own, so after the server
// process dies and a new one listens, the client stays down for good. A
// stop/start from the polling thread is safe: nothing else touches the port.
//
// Why ask the kernel: DPDK 22.11's net_af_packet reports its link up from
// rte_eth_dev_start to stop, whatever the interface's carrier; a veth whose
// peer went down says so in IFF_RUNNING.
#pragma once

#include <cstdint>
#include <string>

#include "nanopu/stats.h"

namespace nanopu {

struct LinkWatchParams {
  uint16_t port_id = 0;
  bool ethdev = true;              // false: not a DPDK port (a UDP socket): always up
  bool reconnect = false;          // restart the port while its link is down
  uint64_t check_every_tsc = 0;    // how often to look at the link
  uint64_t retry_every_tsc = 0;    // how often to restart a port that is down
  std::string kernel_iface;        // also require this kernel interface's carrier ("": none)
};

class LinkWatch {
 public:
  explicit LinkWatch(const LinkWatchParams& params);
  ~LinkWatch();
  LinkWatch(const LinkWatch&) = delete;
  LinkWatch& operator=(const LinkWatch&) = delete;

  // From the polling thread, every iteration; does something only every
  // check_every_tsc. Returns whether the link is up (as last seen).
  bool poll(uint64_t now, NicCounters* counters) {
    if (!p_.ethdev || p_.check_every_tsc == 0 || now < next_check_) return up_;  // most polls: inline
    return check(now, counters);
  }
  [[nodiscard]] bool up() const { return up_; }
  // How long the link has been down (0 while up).
  [[nodiscard]] uint64_t down_for(uint64_t now) const { return up_ ? 0 : now - down_since_; }
  // False between a restart's stop and a start that succeeded: the port's
  // burst functions must not be called then (DPDK points them at stubs that
  // complain).
  [[nodiscard]] bool port_started() const { return started_; }

 private:
  bool check(uint64_t now, NicCounters* counters);  // poll()'s look at the port
  LinkWatchParams p_;
  [[nodiscard]] bool kernel_carrier() const;

  std::string name_;  // "port 0 (net_memif)"
  int ioctl_fd_ = -1; // for SIOCGIFFLAGS on kernel_iface
  bool up_ = true;
  bool ever_up_ = false;  // "lost" only for a link that was up; before, "not up yet"
  bool started_ = true;
  uint64_t next_check_ = 0;
  uint64_t next_retry_ = 0;
  uint64_t down_since_ = 0;
};

}  // namespace nanopu
