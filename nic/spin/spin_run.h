// One message's run through its execution context's handlers: the Handle
// the handlers are given (nanopu/spin.h) — the commands they issue are
// collected here (the host message's bytes, the sends, forward) and carried
// out by the engine once the completion handler has returned, so that a
// handler never re-enters the transport that is delivering its message.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "nanopu/spin.h"

namespace nanopu {

struct SpinSend {
  uint32_t ip = 0;
  uint16_t context = 0;
  uint16_t run = 0;
  uint16_t len = 0;
  uint32_t offset = 0;  // in SpinRun::send_bytes
};

class SpinRun final : public spin::Handle {
 public:
  // Each run begins a message: memory is the context's, scratch its buffer.
  void begin(const spin::MessageInfo& info, uint8_t* memory, uint32_t memory_bytes, uint8_t* scratch,
             uint32_t scratch_bytes);

  [[nodiscard]] const spin::MessageInfo& message() const override { return info_; }
  [[nodiscard]] spin::Memory& memory() override { return memory_; }
  [[nodiscard]] spin::Memory& scratch() override { return scratch_; }
  bool host_write(uint32_t offset, std::span<const uint8_t> bytes) override;
  bool host_write_memory(uint32_t offset, uint32_t mem_offset, uint32_t len) override;
  void forward() override { forward_ = true; }
  bool send(uint32_t ip, uint16_t context, std::span<const uint8_t> bytes, uint16_t run) override;
  void charge_cycles(uint64_t cycles) override { cycles_ += cycles; }

  // The host message's room at its largest, allocated and touched now: a
  // stream's first host_write then costs its handler no page faults.
  void reserve_host();

  // What the handlers asked for.
  [[nodiscard]] spin::Fault fault() const { return fault_; }
  void set_fault(spin::Fault f) {
    if (fault_ == spin::Fault::kNone) fault_ = f;
  }
  [[nodiscard]] bool forwarding() const { return forward_; }
  [[nodiscard]] std::span<const uint8_t> host_bytes() const { return {host_.data(), host_len_}; }
  [[nodiscard]] const std::vector<SpinSend>& sends() const { return sends_; }
  [[nodiscard]] const uint8_t* send_bytes(const SpinSend& s) const { return send_bytes_.data() + s.offset; }
  [[nodiscard]] uint64_t cycles() const { return cycles_; }

 private:
  spin::MessageInfo info_;
  spin::Fault fault_ = spin::Fault::kNone;
  spin::Memory memory_;
  spin::Memory scratch_;
  std::vector<uint8_t> host_;  // grows to the furthest write (<= 65535)
  uint32_t host_len_ = 0;
  bool forward_ = false;
  std::vector<SpinSend> sends_;
  std::vector<uint8_t> send_bytes_;
  uint64_t cycles_ = 0;
};

}  // namespace nanopu
