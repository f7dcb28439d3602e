// A simulated host's memory system (Config::memory_model; NEBULA (ISCA'20)
// §III, Fig. 1): each message its threads take is charged the DRAM waits
// that the host's load gives, from the memory model (model/memory/
// memory_system.h), so a service's own code meets the bandwidth its
// receive buffers cost — per connection, bounded by the SLO, or ideally
// reused. The host's cores stand for all of the modelled server's (each of
// the others as busy as its own): the DRAM's load is the host's rate of
// messages times the server's cores over the host's. Counted time only
// (nanopu-sim); every number *modelled*.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "model/memory/memory_system.h"
#include "scheduler/message_charge.h"

namespace nanopu {

class HostMemory final : public sched::MessageCharge {
 public:
  // spec: SYSTEM:BUFFERS[:get=G,value=V] — SYSTEM nebula_server or
  // nebula_simulation, BUFFERS per_connection, bounded or ideal; the
  // service's demand per request MICA's at a GET share G (0..1) and value
  // size V bytes (model::RpcMemoryDemand::mica), by default §III's SET;
  // host_cores: its worker cores.
  [[nodiscard]] static absl::StatusOr<HostMemory> parse(const std::string& spec, uint32_t host_cores);
  // What parse() accepts, for a flag's help and an error.
  static constexpr const char* kSyntax =
      "SYSTEM:BUFFERS[:get=G,value=V], SYSTEM nebula_server or nebula_simulation, BUFFERS per_connection, bounded "
      "or ideal, and a request's demand MICA's at GET share G (0..1) and value size V (1..65536 bytes), by default "
      "a 512-byte SET";

  uint64_t ps_at_start(uint64_t now_ticks) override;
  // One line: the messages charged, the DRAM's traffic and its share of the
  // bandwidth over the run, the buffers' LLC hit.
  [[nodiscard]] std::string summary() const;

 private:
  HostMemory(const model::MemorySystem& m, model::BufferProvisioning p, double buffer_bytes,
             const model::RpcMemoryDemand& rpc, uint32_t host_cores);

  model::MemorySystem system_;
  model::BufferProvisioning buffers_;
  model::RpcMemoryDemand rpc_;  // a request's, as declared (§III's SET by default)
  model::MemoryTraffic traffic_;
  double replicas_;             // the server's cores over the host's
  // The last kWindow messages' start times (ticks): the host's rate.
  static constexpr size_t kWindow = 64;
  std::array<uint64_t, kWindow> starts_{};
  uint64_t messages_ = 0;
  uint64_t first_tick_ = 0, last_tick_ = 0;
  double wait_ns_sum_ = 0;
};

}  // namespace nanopu
