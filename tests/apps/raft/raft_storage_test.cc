// Raft's persistent state (apps/raft/raft_storage.h): what was written is
// what a restarted server reads back — the last term and vote, the log
// with a conflict's truncation applied — and a record cut short by a crash
// mid-write is dropped, not misread. A node made with the storage starts
// from it.
#include "apps/raft/raft_storage.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <string>

#include "apps/raft/raft_node.h"

namespace nanopu::apps {
namespace {

RaftEntry entry(uint64_t term, uint64_t key) {
  RaftEntry e;
  e.term = term;
  e.client = 7;
  e.session = 70 + key;
  e.client_seq = key;
  e.op = RaftOp::kPut;
  e.key = {key, ~key};
  for (uint32_t i = 0; i < kRaftValueWords; ++i) e.value[i] = key * 100 + i;
  return e;
}

std::string fresh_path(const std::string& name) {
  const std::string p = ::testing::TempDir() + "raft-storage-" + std::to_string(getpid()) + "-" + name;
  unlink(p.c_str());
  return p;
}

TEST(RaftStorageTest, ARestartReadsBackTermVoteAndTheLogAsTruncated) {
  const std::string path = fresh_path("a");
  {
    auto s = RaftStorage::open(path);
    ASSERT_TRUE(s.ok()) << s.status();
    EXPECT_EQ((*s)->recovered().term, 0u);
    EXPECT_EQ((*s)->recovered().vote, -1);
    (*s)->save_term_vote(3, -1);
    (*s)->save_term_vote(5, 2);
    for (uint64_t k = 1; k <= 3; ++k) (*s)->append(entry(4, k));
    (*s)->truncate(2);  // a conflict drops entry 3
    (*s)->append(entry(5, 9));
  }
  auto s = RaftStorage::open(path);
  ASSERT_TRUE(s.ok());
  const RaftStorage::State& st = (*s)->recovered();
  EXPECT_EQ(st.term, 5u);
  EXPECT_EQ(st.vote, 2);
  ASSERT_EQ(st.log.size(), 3u);
  EXPECT_EQ(st.log[0].key[0], 1u);
  EXPECT_EQ(st.log[1].key[0], 2u);
  EXPECT_EQ(st.log[2].term, 5u);
  EXPECT_EQ(st.log[2].key[0], 9u);
  EXPECT_EQ(st.log[2].value[7], 907u);
  EXPECT_EQ(st.log[2].session, 79u);
  unlink(path.c_str());
}

// A file written before entries carried their client's session: its
// records read back, the session 0, and new ones append beside them.
TEST(RaftStorageTest, EntriesWrittenBeforeSessionsReadBackWithSessionZero) {
  const std::string path = fresh_path("old");
  {
    const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    uint64_t old[1 + kRaftEntryWords - 1] = {2, /*term*/ 6, /*client*/ 7, /*seq*/ 3, /*op*/ 2, /*key*/ 4, ~uint64_t{4}};
    for (uint32_t i = 0; i < kRaftValueWords; ++i) old[7 + i] = 400 + i;
    ASSERT_EQ(write(fd, old, sizeof old), static_cast<ssize_t>(sizeof old));
    close(fd);
    auto s = RaftStorage::open(path);
    ASSERT_TRUE(s.ok());
    (*s)->append(entry(6, 8));
  }
  auto s = RaftStorage::open(path);
  ASSERT_TRUE(s.ok());
  const RaftStorage::State& st = (*s)->recovered();
  ASSERT_EQ(st.log.size(), 2u);
  EXPECT_EQ(st.log[0].term, 6u);
  EXPECT_EQ(st.log[0].client, 7u);
  EXPECT_EQ(st.log[0].session, 0u);
  EXPECT_EQ(st.log[0].client_seq, 3u);
  EXPECT_EQ(st.log[0].key[0], 4u);
  EXPECT_EQ(st.log[0].value[7], 407u);
  EXPECT_EQ(st.log[1].session, 78u);
  unlink(path.c_str());
}

TEST(RaftStorageTest, ARecordCutShortByACrashIsDropped) {
  const std::string path = fresh_path("b");
  {
    auto s = RaftStorage::open(path);
    ASSERT_TRUE(s.ok());
    (*s)->save_term_vote(2, 1);
    (*s)->append(entry(2, 1));
  }
  const int fd = open(path.c_str(), O_WRONLY | O_APPEND);
  const uint64_t half[] = {2, 3, 7};  // an entry record's first words only
  ASSERT_EQ(write(fd, half, sizeof half), static_cast<ssize_t>(sizeof half));
  close(fd);
  {
    auto s = RaftStorage::open(path);
    ASSERT_TRUE(s.ok());
    EXPECT_EQ((*s)->recovered().term, 2u);
    EXPECT_EQ((*s)->recovered().log.size(), 1u);
    // What is written after the torn tail reads back aligned: the tail was cut.
    (*s)->save_term_vote(3, 0);
    (*s)->append(entry(3, 5));
  }
  auto s = RaftStorage::open(path);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ((*s)->recovered().term, 3u);
  EXPECT_EQ((*s)->recovered().vote, 0);
  ASSERT_EQ((*s)->recovered().log.size(), 2u);
  EXPECT_EQ((*s)->recovered().log[1].key[0], 5u);
  unlink(path.c_str());
}

TEST(RaftStorageTest, ANodeStartsFromWhatItPromisedAndAnUnopenablePathIsAnError) {
  const std::string path = fresh_path("c");
  {
    auto s = RaftStorage::open(path);
    ASSERT_TRUE(s.ok());
    (*s)->save_term_vote(9, 1);
    (*s)->append(entry(8, 4));
  }
  auto s = RaftStorage::open(path);
  ASSERT_TRUE(s.ok());
  RaftNodeConfig c;
  c.self = 0;
  c.servers = 3;
  RaftNode node(c, [](const RaftNode::Out&) {}, [](const std::string&) {}, s->get());
  EXPECT_EQ(node.term(), 9u);
  EXPECT_EQ(node.last_index(), 1u);
  // It voted for server 1 in term 9: server 2 asking in term 9 is refused.
  std::vector<RaftNode::Out> sent;
  RaftNode again(c, [&](const RaftNode::Out& o) { sent.push_back(o); }, [](const std::string&) {}, s->get());
  const uint64_t ask[] = {raft_w0(9, RaftType::kRequestVote), 2, 5, 9};
  again.receive(ask, 4, 32, 0);
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].words[2], 0u) << "a second vote in term 9";
  unlink(path.c_str());
  EXPECT_FALSE(RaftStorage::open("/nonexistent-dir/raft").ok());
}

}  // namespace
}  // namespace nanopu::apps
