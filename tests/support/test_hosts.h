// Test support: drive several in-process hosts from the test's thread.
#pragma once

#include <chrono>
#include <functional>
#include <initializer_list>

#include "nanopu/runtime.h"

namespace nanopu::testing {

// Polls every host until done() or the wall-clock limit; returns done().
inline bool poll_until(std::initializer_list<Runtime*> hosts, const std::function<bool()>& done,
                       std::chrono::milliseconds limit = std::chrono::seconds(20)) {
  const auto end = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() > end) return false;
    for (Runtime* h : hosts) h->poll_once();
  }
  return true;
}

}  // namespace nanopu::testing
