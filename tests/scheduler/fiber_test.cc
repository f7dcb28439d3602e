#include "scheduler/fiber.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace nanopu::sched {
namespace {

TEST(FiberTest, ResumeAndSuspendInterleave) {
  std::vector<std::string> trace;
  Fiber* self = nullptr;
  Fiber f([&] {
    trace.push_back("a");
    self->suspend();
    trace.push_back("b");
    self->suspend();
    trace.push_back("c");
  });
  self = &f;
  f.resume();
  trace.push_back("1");
  f.resume();
  trace.push_back("2");
  EXPECT_FALSE(f.finished());
  f.resume();
  EXPECT_TRUE(f.finished());
  f.resume();  // a finished fiber is not resumed again
  EXPECT_EQ(trace, (std::vector<std::string>{"a", "1", "b", "2", "c"}));
}

TEST(FiberTest, DestroyingASuspendedFiberUnwindsItsStack) {
  bool unwound = false;
  struct Guard {
    bool* f;
    ~Guard() { *f = true; }
  };
  {
    Fiber* self = nullptr;
    Fiber f([&] {
      Guard g{&unwound};
      self->suspend();
      ADD_FAILURE() << "never resumed normally";
    });
    self = &f;
    f.resume();
    EXPECT_FALSE(unwound);
  }
  EXPECT_TRUE(unwound);
}

TEST(FiberTest, ManyFibersEachKeepTheirOwnStack) {
  constexpr int kFibers = 16;
  std::vector<std::unique_ptr<Fiber>> fibers;
  std::vector<int> sums(kFibers, 0);
  for (int i = 0; i < kFibers; ++i) {
    Fiber** self = new Fiber*;
    fibers.push_back(std::make_unique<Fiber>([i, self, &sums] {
      int local = i;  // lives on this fiber's stack across switches
      for (int k = 0; k < 10; ++k) {
        local += 1;
        (*self)->suspend();
      }
      sums[i] = local;
      delete self;
    }));
    *self = fibers.back().get();
  }
  for (int round = 0; round < 11; ++round)
    for (auto& f : fibers) f->resume();
  for (int i = 0; i < kFibers; ++i) EXPECT_EQ(sums[i], i + 10);
}

}  // namespace
}  // namespace nanopu::sched
