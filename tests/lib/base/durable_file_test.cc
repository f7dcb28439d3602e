// nanopu::DurableFile (nanopu/durable_file.h): live, what is appended is read
// back by the next open; simulated, a power loss keeps what was synced and a
// prefix of the rest, drawn from the seed, and touches no other host's files.
#include "nanopu/durable_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <set>
#include <string>

#include "lib/base/sim_actor.h"

namespace nanopu {
namespace {

std::string scratch(const std::string& name) {
  return "/tmp/nanopu-durable-" + std::to_string(getpid()) + "-" + name;
}

TEST(DurableFileTest, WhatIsAppendedIsReadBackByTheNextOpen) {
  const std::string path = scratch("live");
  unlink(path.c_str());
  {
    absl::StatusOr<std::unique_ptr<DurableFile>> f = DurableFile::open(path);
    ASSERT_TRUE(f.ok()) << f.status();
    ASSERT_TRUE((*f)->append("hello ", 6).ok());
    ASSERT_TRUE((*f)->sync().ok());
    ASSERT_TRUE((*f)->append("world", 5).ok());
    EXPECT_EQ((*f)->size(), 11u);
    EXPECT_EQ((*f)->synced_size(), 6u);
  }
  std::string bytes;
  absl::StatusOr<std::unique_ptr<DurableFile>> g = DurableFile::open(path, &bytes);
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(bytes, "hello world") << "a closed file keeps its bytes: only a power loss takes unsynced ones";
  ASSERT_TRUE((*g)->truncate(5).ok());
  EXPECT_FALSE((*g)->truncate(6).ok()) << "beyond its end";
  g->reset();
  ASSERT_TRUE(DurableFile::open(path, &bytes).ok());
  EXPECT_EQ(bytes, "hello");
  absl::StatusOr<std::unique_ptr<DurableFile>> bad = DurableFile::open("/nonexistent-dir/x");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(std::string(bad.status().message()).find("/nonexistent-dir/x"), std::string::npos) << bad.status();
  unlink(path.c_str());
}

TEST(DurableFileTest, APowerLossKeepsTheSyncedBytesAndAPrefixOfTheRest) {
  simulate_durable_files(true);
  std::set<uint64_t> kept;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    const std::string mine = scratch("mine"), theirs = scratch("theirs");
    unlink(mine.c_str());
    unlink(theirs.c_str());
    set_sim_actor(7);
    std::unique_ptr<DurableFile> a = *DurableFile::open(mine);
    set_sim_actor(8);
    std::unique_ptr<DurableFile> b = *DurableFile::open(theirs);
    const std::string synced(100, 's'), more(50, 'u');
    ASSERT_TRUE(a->append(synced.data(), synced.size()).ok() && a->sync().ok());
    ASSERT_TRUE(a->append(more.data(), more.size()).ok());
    ASSERT_TRUE(b->append(more.data(), more.size()).ok());  // never synced, on another host
    lose_unsynced_writes(7, seed);
    EXPECT_GE(a->size(), 100u);
    EXPECT_LE(a->size(), 150u);
    EXPECT_EQ(a->synced_size(), a->size());
    kept.insert(a->size());
    std::string bytes;
    set_sim_actor(0);
    ASSERT_TRUE(DurableFile::open(mine, &bytes).ok());
    EXPECT_EQ(bytes, (synced + more).substr(0, a->size())) << "the file on disk is what was kept";
    ASSERT_TRUE(DurableFile::open(theirs, &bytes).ok());
    EXPECT_EQ(bytes.size(), 50u) << "another host's file is untouched";
    ASSERT_TRUE(a->append(more.data(), more.size()).ok());  // the dead process's late write
    const uint64_t before = a->size();
    lose_unsynced_writes(7, seed + 1000);  // its files were forgotten: a second loss cuts nothing
    EXPECT_EQ(a->size(), before);
    unlink(mine.c_str());
    unlink(theirs.c_str());
  }
  EXPECT_GT(kept.size(), 10u) << "the cut is drawn from the seed";
  simulate_durable_files(false);
  set_sim_actor(0);
}

}  // namespace
}  // namespace nanopu
