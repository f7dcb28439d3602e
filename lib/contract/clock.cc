#include "lib/contract/clock.h"

#include <cassert>

namespace nanopu::clock {

VirtualClock::VirtualClock(uint64_t start_ps) : now_ps_(start_ps == 0 ? 1 : start_ps) {
  assert(detail::g_virtual_now == nullptr && "one VirtualClock at a time");
  detail::g_virtual_now = &now_ps_;
  detail::g_virtual_runs = &runs_;
}

VirtualClock::~VirtualClock() {
  detail::g_charged_ps = 0;
  detail::g_work_costs = WorkCosts{};
  detail::g_virtual_now = nullptr;
  detail::g_virtual_runs = nullptr;
}

}  // namespace nanopu::clock
