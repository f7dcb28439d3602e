// One DPDK port with one RX and one TX queue and the mempool every message
// buffer of this host comes from (with MsgMeta in each mbuf's private area).
#pragma once

#include <rte_mempool.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "nanopu/config.h"
#include "nic/wire/frame.h"

namespace nanopu {

class Port {
 public:
  // Opens the port at `index` in probe order. name_tag keeps the mempool name
  // unique when one process runs several hosts (tests).
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<Port>> open(const Config& config,
                                                                 const std::string& name_tag);
  ~Port();
  Port(const Port&) = delete;
  Port& operator=(const Port&) = delete;

  [[nodiscard]] uint16_t id() const { return id_; }
  [[nodiscard]] rte_mempool* pool() const { return pool_; }
  [[nodiscard]] const wire::MacAddr& mac() const { return mac_; }
  [[nodiscard]] const std::string& driver() const { return driver_; }
  // Waits up to seconds for link up; false on timeout or stop.
  [[nodiscard]] bool wait_link_up(double seconds, const std::atomic<bool>& stop) const;

 private:
  Port() = default;
  uint16_t id_ = 0;
  rte_mempool* pool_ = nullptr;
  wire::MacAddr mac_{};
  std::string driver_;
  bool started_ = false;
};

// Ports in probe order, for error messages ("port 1 of 1: net_ring0").
[[nodiscard]] std::string describe_ports();

}  // namespace nanopu
