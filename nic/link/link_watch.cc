#include "nic/link/link_watch.h"

#include <rte_cycles.h>
#include <rte_ethdev.h>

#include <cstdio>

#include "absl/strings/str_cat.h"

namespace nanopu {

LinkWatch::LinkWatch(const LinkWatchParams& params) : p_(params) {
  rte_eth_dev_info info{};
  const char* driver = rte_eth_dev_info_get(p_.port_id, &info) == 0 && info.driver_name != nullptr
                           ? info.driver_name
                           : "?";
  name_ = absl::StrCat("port ", p_.port_id, " (", driver, ")");
}

bool LinkWatch::poll(uint64_t now, NicCounters* counters) {
  if (p_.check_every_tsc == 0 || now < next_check_) return up_;
  next_check_ = now + p_.check_every_tsc;
  rte_eth_link link{};
  const bool up = rte_eth_link_get_nowait(p_.port_id, &link) == 0 && link.link_status == RTE_ETH_LINK_UP;
  const double hz = static_cast<double>(rte_get_tsc_hz());
  if (up != up_) {
    up_ = up;
    if (!up) {
      ++counters->link_downs;
      down_since_ = now;
      next_retry_ = now + p_.retry_every_tsc;
      std::fprintf(stderr, "nanopu: %s lost its link%s\n", name_.c_str(),
                   p_.reconnect ? absl::StrCat("; reconnecting every ",
                                               static_cast<double>(p_.retry_every_tsc) * 1e3 / hz, " ms")
                                      .c_str()
                                : " (messages to the peer are retransmitted until it is back or given up)");
    } else {
      std::fprintf(stderr, "nanopu: %s link up again after %.2f s\n", name_.c_str(),
                   static_cast<double>(now - down_since_) / hz);
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
