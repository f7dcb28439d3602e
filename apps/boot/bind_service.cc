#include "apps/boot/bind_service.h"

#include <atomic>
#include <cstdio>
#include <string>

#include "apps/boot/boot_message.h"

namespace nanopu::apps {
namespace {

// ip << 16 | context, plus kArmed; 0: no announcement. One word, so a thread
// reads it whole and only one thread ever takes it (exchange).
constexpr uint64_t kArmed = uint64_t{1} << 63;
std::atomic<uint64_t> g_boot_target{0};

}  // namespace

void announce_on_bind(uint32_t ip, uint16_t context) {
  g_boot_target.store(kArmed | uint64_t{ip} << 16 | context, std::memory_order_release);
}

bool bind_service(Thread& t, uint16_t context, uint8_t priority, const char* who) {
  if (absl::Status s = t.bind(context, priority); !s.ok()) {
    std::fprintf(stderr, "nanopu: %s: %s\n", who, std::string(s.message()).c_str());
    return false;
  }
  if (context != kBootContext) return true;
  const uint64_t target = g_boot_target.exchange(0, std::memory_order_acq_rel);
  if ((target & kArmed) == 0) return true;
  const auto ip = static_cast<uint32_t>(target >> 16);
  const auto to = static_cast<uint16_t>(target & 0xffff);
  if (!send_boot_message_from_bound(t, ip, to))
    std::fprintf(stderr, "nanopu: %s: could not send the boot message\n", who);
  return true;
}

}  // namespace nanopu::apps
