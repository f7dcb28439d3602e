// What a service that links nanopu::nanopu (and not nanopu::flags) gets.
#include <gtest/gtest.h>

#include "absl/flags/reflection.h"
#include "nanopu/runtime.h"

namespace nanopu {
namespace {

TEST(PublicApiTest, TheLibraryDefinesNoCommandLineFlag) {
  for (const char* name : {"lcores", "vdev", "ip", "rto_us", "jbsq_n", "scheduler", "faults"})
    EXPECT_EQ(absl::FindCommandLineFlag(name), nullptr) << "--" << name;
}

TEST(PublicApiTest, ABadConfigIsAStatusNotAnExit) {
  Config c;
  c.jbsq_n = 0;
  absl::StatusOr<std::unique_ptr<Runtime>> rt = Runtime::create(c);
  ASSERT_FALSE(rt.ok());
  EXPECT_EQ(rt.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(rt.status().message().find("Config.jbsq_n=0"), std::string::npos) << rt.status();
}

}  // namespace
}  // namespace nanopu
