#include "nic/spin/spin_run.h"

#include <algorithm>
#include <cstring>

#include "nanopu/limits.h"

namespace nanopu {

void SpinRun::begin(const spin::MessageInfo& info, uint8_t* memory, uint32_t memory_bytes,
                    uint8_t* scratch, uint32_t scratch_bytes) {
  info_ = info;
  fault_ = spin::Fault::kNone;
  // The accessors report a violation into this run's fault.
  memory_ = spin::Memory(memory, memory_bytes, &fault_);
  if (scratch_bytes != 0) std::memset(scratch, 0, scratch_bytes);
  scratch_ = spin::Memory(scratch, scratch_bytes, &fault_);
  host_len_ = 0;
  forward_ = false;
  sends_.clear();
  send_bytes_.clear();
  cycles_ = 0;
}

void SpinRun::reserve_host() { host_.resize(kMaxMessageBytes); }  // zero-filled: every page touched

bool SpinRun::host_write(uint32_t offset, std::span<const uint8_t> bytes) {
  const uint64_t end = uint64_t{offset} + bytes.size();
  if (end > kMaxMessageBytes) {
    set_fault(spin::Fault::kBadCommand);
    return false;
  }
  if (end > host_.size()) host_.resize(std::max<size_t>(end, std::min<size_t>(kMaxMessageBytes, 2 * host_.size())));
  // Bytes never written read as 0, whatever an earlier message left.
  if (offset > host_len_) std::memset(host_.data() + host_len_, 0, offset - host_len_);
  if (!bytes.empty()) std::memcpy(host_.data() + offset, bytes.data(), bytes.size());
  host_len_ = std::max<uint32_t>(host_len_, static_cast<uint32_t>(end));
  return true;
}

bool SpinRun::host_write_memory(uint32_t offset, uint32_t mem_offset, uint32_t len) {
  const std::span<const uint8_t> from = memory_.view(mem_offset, len);
  if (from.size() != len) return false;  // the view faulted
  return host_write(offset, from);
}

bool SpinRun::send(uint32_t ip, uint16_t context, std::span<const uint8_t> bytes, uint16_t run) {
  if (bytes.size() > spin::kMaxSendBytes || bytes.empty() || ip == 0 || sends_.size() == spin::kMaxSendsPerMessage) {
    set_fault(spin::Fault::kBadCommand);
    return false;
  }
  const auto offset = static_cast<uint32_t>(send_bytes_.size());
  send_bytes_.insert(send_bytes_.end(), bytes.begin(), bytes.end());
  sends_.push_back({ip, context, run, static_cast<uint16_t>(bytes.size()), offset});
  return true;
}

}  // namespace nanopu
