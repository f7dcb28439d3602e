// An execution context run on the calling thread, with no NIC and no network
// (nanopu/spin.h): for an author's unit tests of handlers, and for measuring
// what a handler costs a core of this machine (PsPIN Fig. 11's method:
// packets already in memory, statically assigned, no I/O).
//
//   nanopu::spin::LocalContext local(make_histogram_context());
//   auto out = local.run(message_bytes, {.src_ip = ...});
//   // out.host: what the host would have received; local.report(): counts
//
// The same handler code and the same checks (memory bounds, exceptions,
// the budget) as on the NIC core, the packets in message order (the NIC
// runs them as they arrive: the same order on a network that loses and
// reorders nothing); sends are returned, not sent.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "absl/status/statusor.h"
#include "nanopu/spin.h"

namespace nanopu::spin {

struct LocalSend {
  uint32_t ip = 0;
  uint16_t context = 0;
  std::vector<uint8_t> bytes;
};

struct LocalOutcome {
  std::vector<uint8_t> host;      // the host message (empty: none)
  std::vector<LocalSend> sends;
  bool forwarded = false;
  Fault fault = Fault::kNone;     // the context is disabled once one occurs
  uint64_t cycles = 0;            // declared by its handlers
};

class LocalContext {
 public:
  // The context's handler memory made (and init run); an error as
  // Runtime::install gives one.
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<LocalContext>> create(ExecutionContext ctx);
  ~LocalContext();
  LocalContext(const LocalContext&) = delete;
  LocalContext& operator=(const LocalContext&) = delete;

  // One message: `bytes` cut into packets of packet_bytes (1024 on nanopu's
  // wire; 1..1024), through the handlers. A disabled context runs nothing
  // and returns its fault.
  [[nodiscard]] LocalOutcome run(std::span<const uint8_t> bytes, MessageInfo info = {},
                                 uint32_t packet_bytes = 1024);
  [[nodiscard]] const ContextReport& report() const;
  [[nodiscard]] Memory memory();  // the handler memory, for a test to inspect (unchecked faults)

 private:
  struct State;
  explicit LocalContext(std::unique_ptr<State> s);
  std::unique_ptr<State> s_;
};

}  // namespace nanopu::spin
