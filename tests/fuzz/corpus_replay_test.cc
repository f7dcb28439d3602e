// Replays every fuzz corpus file (fuzz/corpus/<target>/) through its target's
// entry point, so inputs the fuzzers found interesting stay regression tests
// in the sanitizer and fuzz builds (the top-level CMakeLists.txt says why
// not in the normal one).
//
// Usage: fuzz_<target>_corpus_test CORPUS_DIR [gtest flags]. One object for
// every target (compiled once): the corpus comes as an argument, and the
// optional LLVMFuzzerInitialize is a weak reference.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
extern "C" [[gnu::weak]] int LLVMFuzzerInitialize(int* argc, char*** argv);

namespace {

std::filesystem::path corpus_dir;

TEST(CorpusReplayTest, Corpus) {
  if (LLVMFuzzerInitialize != nullptr) {
    ASSERT_EQ(LLVMFuzzerInitialize(nullptr, nullptr), 0);
  }
  ASSERT_TRUE(std::filesystem::is_directory(corpus_dir)) << corpus_dir;
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(corpus_dir)) {
    std::ifstream f(entry.path(), std::ios::binary);
    std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    EXPECT_EQ(LLVMFuzzerTestOneInput(bytes.data(), bytes.size()), 0) << entry.path();
    ++files;
  }
  EXPECT_GE(files, 1);
}

}  // namespace

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);  // removes the flags it knows
  if (argc != 2) {
    std::cerr << "usage: " << argv[0] << " CORPUS_DIR [gtest flags]\n";
    return 2;
  }
  corpus_dir = argv[1];
  return RUN_ALL_TESTS();
}
