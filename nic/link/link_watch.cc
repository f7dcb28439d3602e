#include "nic/link/link_watch.h"
#include "lib/base/log.h"

#include <net/if.h>
#include <rte_ethdev.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "lib/contract/clock.h"

namespace nanopu {

LinkWatch::LinkWatch(const LinkWatchParams& params) : p_(params) {
  if (!p_.ethdev) return;
  rte_eth_dev_info info{};
  const char* driver = rte_eth_dev_info_get(p_.port_id, &info) == 0 && info.driver_name != nullptr
                           ? info.driver_name
                           : "?";
  name_ = absl::StrCat("port ", p_.port_id, " (", driver, ")");
  if (!p_.kernel_iface.empty()) {
    ioctl_fd_ = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (ioctl_fd_ < 0 || p_.kernel_iface.size() >= IFNAMSIZ)
      NANOPU_LOG(kWarning, "%s: cannot watch the carrier of %s; trusting the PMD's link status",
                   name_.c_str(), p_.kernel_iface.c_str());
  }
}

LinkWatch::~LinkWatch() {
  if (ioctl_fd_ >= 0) close(ioctl_fd_);
}

bool LinkWatch::kernel_carrier() const {
  if (ioctl_fd_ < 0 || p_.kernel_iface.size() >= IFNAMSIZ) return true;
  ifreq req{};
  std::memcpy(req.ifr_name, p_.kernel_iface.data(), p_.kernel_iface.size());
  if (ioctl(ioctl_fd_, SIOCGIFFLAGS, &req) != 0) return false;  // the interface is gone
  return (req.ifr_flags & IFF_RUNNING) != 0;
}

bool LinkWatch::check(uint64_t now, NicCounters* counters) {
  next_check_ = now + p_.check_every_tsc;
  rte_eth_link link{};
  const bool up = rte_eth_link_get_nowait(p_.port_id, &link) == 0 &&
                  link.link_status == RTE_ETH_LINK_UP && kernel_carrier();
  const double hz = static_cast<double>(clock::hz());
  if (up) ever_up_ = true;
  if (up != up_) {
    up_ = up;
    if (!up && !ever_up_) {  // never up yet: a server waiting for its first peer
      down_since_ = now;
      next_retry_ = now + p_.retry_every_tsc;
      NANOPU_LOG(kInfo, "%s has no link yet: waiting for its peer", name_.c_str());
    } else if (!up) {
      ++counters->link_downs;
      down_since_ = now;
      next_retry_ = now + p_.retry_every_tsc;
      NANOPU_LOG(kWarning, "%s lost its link%s", name_.c_str(),
                   p_.reconnect ? absl::StrCat("; reconnecting every ",
                                               static_cast<double>(p_.retry_every_tsc) * 1e3 / hz, " ms")
                                      .c_str()
                                : " (messages to the peer are retransmitted until it is back or given up)");
    } else if (counters->link_downs != 0) {
      NANOPU_LOG(kInfo, "%s link up again after %.2f s", name_.c_str(),
                   static_cast<double>(now - down_since_) / hz);
    } else {
      NANOPU_LOG(kInfo, "%s link up", name_.c_str());
    }
  }
  if (!up_ && p_.reconnect && now >= next_retry_) {
    next_retry_ = now + p_.retry_every_tsc;
    ++counters->link_restarts;
    if (started_) (void)rte_eth_dev_stop(p_.port_id);
    // Refused while no peer listens; the next retry tries again.
    started_ = rte_eth_dev_start(p_.port_id) == 0;
  }
  return up_;
}

}  // namespace nanopu
