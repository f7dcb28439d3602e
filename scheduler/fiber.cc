#include "scheduler/fiber.h"

#include <boost/context/protected_fixedsize_stack.hpp>

#if defined(__SANITIZE_ADDRESS__)
#define NANOPU_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NANOPU_ASAN 1
#endif
#endif
#ifdef NANOPU_ASAN
#include <sanitizer/common_interface_defs.h>
#endif
#if defined(__SANITIZE_THREAD__)
#define NANOPU_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define NANOPU_TSAN 1
#endif
#endif
#ifdef NANOPU_TSAN
#include <sanitizer/tsan_interface.h>
#endif

namespace nanopu::sched {
namespace {

// AddressSanitizer must be told about every stack switch, or it mistakes
// the fiber's stack for an overflow of the thread's (sanitizers issue 189).
inline void asan_start_switch(void** fake_save, const void* bottom, size_t size) {
#ifdef NANOPU_ASAN
  __sanitizer_start_switch_fiber(fake_save, bottom, size);
#else
  (void)fake_save, (void)bottom, (void)size;
#endif
}
inline void asan_finish_switch(void* fake, const void** bottom_old, size_t* size_old) {
#ifdef NANOPU_ASAN
  __sanitizer_finish_switch_fiber(fake, bottom_old, size_old);
#else
  (void)fake, (void)bottom_old, (void)size_old;
#endif
}

// ThreadSanitizer must know which fiber runs, or it mixes their stacks'
// histories (and sees every switch as a race).
inline void* tsan_create() {
#ifdef NANOPU_TSAN
  return __tsan_create_fiber(0);
#else
  return nullptr;
#endif
}
inline void* tsan_current() {
#ifdef NANOPU_TSAN
  return __tsan_get_current_fiber();
#else
  return nullptr;
#endif
}
inline void tsan_switch(void* to) {
#ifdef NANOPU_TSAN
  __tsan_switch_to_fiber(to, 0);
#else
  (void)to;
#endif
}
inline void tsan_destroy(void* f) {
#ifdef NANOPU_TSAN
  if (f != nullptr) __tsan_destroy_fiber(f);
#else
  (void)f;
#endif
}

}  // namespace

// A guarded fixed-size stack that tells the Fiber where it is.
struct Fiber::RecordingStack {
  boost::context::protected_fixedsize_stack inner;
  Fiber* owner;
  boost::context::stack_context allocate() {
    boost::context::stack_context sc = inner.allocate();
    owner->stack_top_ = sc.sp;
    owner->stack_size_ = sc.size;
    return sc;
  }
  void deallocate(boost::context::stack_context& sc) noexcept { inner.deallocate(sc); }
};

Fiber::Fiber(std::function<void()> body, size_t stack_bytes)
    : body_(std::move(body)), tsan_fiber_(tsan_create()) {
  self_ = boost::context::fiber(
      std::allocator_arg, RecordingStack{boost::context::protected_fixedsize_stack(stack_bytes), this},
      [this](boost::context::fiber&& caller) {
        caller_ = std::move(caller);
        entered();
        try {
          if (!cancel_) body_();
        } catch (const FiberCancelled&) {
          // Destroyed while suspended: the stack is unwound, we are done.
        }
        finished_ = true;
        switch_to_caller(/*dying=*/true);
        return std::move(caller_);
      });
}

Fiber::~Fiber() {
  if (!finished_ && self_) {
    cancel_ = true;
    resume();
  }
  // If the body swallowed the cancellation and suspended again, Boost's own
  // forced unwind (in self_'s destructor) finishes the job.
  if (finished_) tsan_destroy(tsan_fiber_);
}

void Fiber::entered() { asan_finish_switch(nullptr, &caller_bottom_, &caller_size_); }

void Fiber::switch_to_caller(bool dying) {
  tsan_switch(tsan_caller_);
  // A dying fiber passes no fake-stack slot: ASan frees its fake frames.
  asan_start_switch(dying ? nullptr : &fake_stack_, caller_bottom_, caller_size_);
}

void Fiber::resume() {
  if (finished_ || !self_) return;
  void* fake = nullptr;
  tsan_caller_ = tsan_current();
  tsan_switch(tsan_fiber_);
  asan_start_switch(&fake, static_cast<char*>(stack_top_) - stack_size_, stack_size_);
  self_ = std::move(self_).resume();
  asan_finish_switch(fake, nullptr, nullptr);
}

void Fiber::suspend() {
  switch_to_caller(/*dying=*/false);
  caller_ = std::move(caller_).resume();
  asan_finish_switch(fake_stack_, &caller_bottom_, &caller_size_);
  if (cancel_) throw FiberCancelled{};
}

}  // namespace nanopu::sched
