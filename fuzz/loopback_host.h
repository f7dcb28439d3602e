// Shared by the fuzz targets that drive a whole host (rpc, thread_api): a
// host whose port loops back into itself, made afresh for each input.
#pragma once

#include <rte_eth_ring.h>
#include <rte_ring.h>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>

#include "nanopu/runtime.h"

namespace nanopu::fuzz {

// One host at `ip` whose port is a net_ring port on a ring of its own (what
// it sends comes back to it), for one fuzz input; `tag` names the ring
// (numbered per host made). The ring is freed after the runtime.
class LoopbackHost {
 public:
  LoopbackHost(const char* tag, uint32_t ip) {
    static int n = 0;
    ring_ = rte_ring_create((tag + std::to_string(n++)).c_str(), 1024, SOCKET_ID_ANY, 0);
    const int port = ring_ == nullptr ? -1 : rte_eth_from_ring(ring_);
    if (port < 0) std::abort();
    Config c;
    c.lcores = {0};
    c.port_id = port;
    c.ip = ip;
    c.mbufs = 2047;
    c.max_message_bytes = 4096;
    c.link_wait_s = 0;
    auto rt = Runtime::create(c);
    if (!rt.ok()) std::abort();
    rt_ = std::move(*rt);
  }
  ~LoopbackHost() {
    rt_.reset();
    rte_ring_free(ring_);
  }
  LoopbackHost(const LoopbackHost&) = delete;
  LoopbackHost& operator=(const LoopbackHost&) = delete;
  Runtime& runtime() { return *rt_; }

 private:
  rte_ring* ring_ = nullptr;
  std::unique_ptr<Runtime> rt_;
};

}  // namespace nanopu::fuzz
