// Replays every fuzz corpus file (fuzz/corpus/<target>/) through its target's
// entry point, so inputs the fuzzers found interesting stay regression tests
// in every build, sanitizers included.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
#ifdef NANOPU_FUZZ_HAS_INIT
extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv);
#endif

namespace {

TEST(CorpusReplayTest, Corpus) {
#ifdef NANOPU_FUZZ_HAS_INIT
  ASSERT_EQ(LLVMFuzzerInitialize(nullptr, nullptr), 0);
#endif
  const std::filesystem::path dir = std::filesystem::path(NANOPU_CORPUS_DIR);
  ASSERT_TRUE(std::filesystem::is_directory(dir)) << dir;
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::ifstream f(entry.path(), std::ios::binary);
    std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    EXPECT_EQ(LLVMFuzzerTestOneInput(bytes.data(), bytes.size()), 0) << entry.path();
    ++files;
  }
  EXPECT_GE(files, 1);
}

}  // namespace
