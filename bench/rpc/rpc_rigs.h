// The loops nanopu-bench-rpc times and counts (bench/README.md): one whole
// RPC each — a request's DATA in (carrying the ACK of the reply before),
// the request delivered, its reply handed in and framed out — at two
// depths, each with a raw reference that does the same peer work.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace nanopu::bench {

enum class RpcLoop {
  kTransport,     // the NDP transport alone, framed by the packetizer (no NIC loop, no thread)
  kTransportRef,  // its reference: the peer's request and the reply's buffer, made and freed
  kHost,          // a whole host on this thread: Runtime::poll_shared_turn over an in-memory port, the echo thread
  kHostRef,       // its reference: the peer against a port that reflects its frames
  kIdleTurn,      // not an RPC: one turn of the same host with nothing arriving (what a packet waits for)
};
inline constexpr RpcLoop kRpcLoops[] = {RpcLoop::kTransport, RpcLoop::kTransportRef, RpcLoop::kHost,
                                         RpcLoop::kHostRef, RpcLoop::kIdleTurn};

[[nodiscard]] const char* rpc_loop_name(RpcLoop l);
[[nodiscard]] bool parse_rpc_loop(std::string_view s, RpcLoop* l);

// A loop set up and warmed: run(n) does n RPCs. One per process (each
// host takes lcore resources and a mempool of its own).
class RpcRig {
 public:
  virtual ~RpcRig() = default;
  virtual void run(uint64_t n) = 0;
  // RPCs answered so far (a reply that did not come is an error, not a figure).
  [[nodiscard]] virtual uint64_t answered() const = 0;
};

// The EAL must be up. 64-byte requests and replies.
[[nodiscard]] absl::StatusOr<std::unique_ptr<RpcRig>> make_rpc_rig(RpcLoop which);

}  // namespace nanopu::bench
