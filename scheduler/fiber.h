// A user-level thread on a worker core: a Boost.Context fiber with its own
// guarded stack. resume() runs it until it suspends or returns; suspend()
// (called from inside) switches back to whoever resumed it.
//
// Destroying an unfinished fiber cancels it: it is resumed once more and
// suspend() throws FiberCancelled, which unwinds its stack (destructors run)
// up to the fiber's entry. Code inside a fiber that catches (...) must
// rethrow. Cancelling ourselves, rather than letting Boost force-unwind,
// keeps every stack switch annotated for AddressSanitizer.
#pragma once

#include <boost/context/fiber.hpp>

#include <cstddef>
#include <functional>

namespace nanopu::sched {

struct FiberCancelled {};

class Fiber {
 public:
  static constexpr size_t kDefaultStackBytes = 256 * 1024;

  explicit Fiber(std::function<void()> body, size_t stack_bytes = kDefaultStackBytes);
  Fiber(const Fiber&) = delete;
  Fiber& operator=(const Fiber&) = delete;
  ~Fiber();

  // From the scheduler: run until the fiber suspends or finishes.
  void resume();
  // From inside the fiber: return to the scheduler. Throws FiberCancelled
  // when the fiber is being destroyed.
  void suspend();
  [[nodiscard]] bool finished() const { return finished_; }

 private:
  struct RecordingStack;
  void entered();          // first instructions on the fiber's stack
  void switch_to_caller(bool dying);

  std::function<void()> body_;
  boost::context::fiber self_;    // the suspended fiber (empty while running)
  boost::context::fiber caller_;  // the scheduler (valid while the fiber runs)
  bool finished_ = false;
  bool cancel_ = false;
  // Stack bounds for AddressSanitizer's fiber-switch annotations.
  void* stack_top_ = nullptr;
  size_t stack_size_ = 0;
  const void* caller_bottom_ = nullptr;
  size_t caller_size_ = 0;
  void* fake_stack_ = nullptr;
  // ThreadSanitizer's fiber handles (null without TSan).
  void* tsan_fiber_ = nullptr;
  void* tsan_caller_ = nullptr;
};

}  // namespace nanopu::sched
