#include "apps/raft/raft_storage.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "absl/strings/str_cat.h"

namespace nanopu::apps {
namespace {

// Records: a type word, then a fixed number of words for that type. An
// entry is written with its client's session (kEntry); files written
// before sessions existed hold kEntryNoSession records, read as session 0.
enum RecordType : uint64_t { kTermVote = 1, kEntryNoSession = 2, kTruncate = 3, kEntry = 4 };
constexpr size_t kEntryWords = kRaftEntryWords;  // raft_entry_to_words()
constexpr size_t kEntryNoSessionWords = kRaftEntryWords - 1;
size_t words_of(uint64_t type) {
  switch (type) {
    case kTermVote: return 2;
    case kEntry: return kEntryWords;
    case kEntryNoSession: return kEntryNoSessionWords;
    case kTruncate: return 1;
    default: return 0;
  }
}

// {term, client, client_seq, op, key[2], value[8]}: the session a 0 word.
RaftEntry entry_without_session(const uint64_t* w) {
  uint64_t full[kEntryWords];
  full[0] = w[0];
  full[1] = w[1];
  full[2] = 0;
  std::copy(w + 2, w + kEntryNoSessionWords, full + 3);
  return raft_entry_from_words(full);
}

// Replays the file's records into *s; a short or unknown tail (a crash
// mid-write) ends the replay. Returns the bytes of whole records read.
size_t replay(int fd, RaftStorage::State* s) {
  std::string bytes;
  char buf[4096];
  for (ssize_t n; (n = read(fd, buf, sizeof buf)) > 0;) bytes.append(buf, static_cast<size_t>(n));
  std::vector<uint64_t> words(bytes.size() / 8);
  if (!words.empty()) std::memcpy(words.data(), bytes.data(), words.size() * 8);
  size_t i = 0;
  while (i < words.size()) {
    const uint64_t type = words[i];
    const size_t need = words_of(type);
    if (need == 0 || i + 1 + need > words.size()) break;
    const uint64_t* w = &words[i + 1];
    if (type == kTermVote) {
      s->term = w[0];
      s->vote = static_cast<int>(static_cast<int64_t>(w[1]));
    } else if (type == kEntry) {
      s->log.push_back(raft_entry_from_words(w));
    } else if (type == kEntryNoSession) {
      s->log.push_back(entry_without_session(w));
    } else {
      s->log.resize(std::min<uint64_t>(w[0], s->log.size()));
    }
    i += 1 + need;
  }
  return i * 8;
}

// A promise that cannot be kept must not be made: like etcd on a failed WAL
// write, the server stops rather than answer without its state on disk.
[[noreturn]] void fail(const char* what) {
  std::fprintf(stderr, "raft: --raft_state %s: %s; stopping (its state is not on disk)\n", what, std::strerror(errno));
  std::fflush(stderr);
  std::_Exit(1);
}

}  // namespace

absl::StatusOr<std::unique_ptr<RaftStorage>> RaftStorage::open(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return absl::FailedPreconditionError(absl::StrCat("--raft_state ", path, ": ", std::strerror(errno)));
  std::unique_ptr<RaftStorage> s(new RaftStorage(fd));
  s->size_ = replay(fd, &s->recovered_);
  // A torn tail goes, so that what is appended next is read back aligned.
  if (ftruncate(fd, static_cast<off_t>(s->size_)) != 0)
    return absl::FailedPreconditionError(absl::StrCat("--raft_state ", path, ": ", std::strerror(errno)));
  return s;
}

RaftStorage::~RaftStorage() { ::close(fd_); }

void RaftStorage::put(const uint64_t* words, size_t n) {
  const auto* p = reinterpret_cast<const char*>(words);
  size_t left = n * 8;
  while (left > 0) {
    const ssize_t w = ::write(fd_, p, left);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      (void)ftruncate(fd_, static_cast<off_t>(size_));  // no torn record behind
      fail("write failed");
    }
    p += w;
    left -= static_cast<size_t>(w);
  }
  size_ += n * 8;
}

void RaftStorage::save_term_vote(uint64_t term, int vote) {
  const uint64_t r[] = {kTermVote, term, static_cast<uint64_t>(static_cast<int64_t>(vote))};
  put(r, 3);
}

void RaftStorage::append(const RaftEntry& e) {
  uint64_t r[1 + kEntryWords] = {kEntry};
  raft_entry_to_words(e, r + 1);
  put(r, 1 + kEntryWords);
}

void RaftStorage::truncate(uint64_t entries) {
  const uint64_t r[] = {kTruncate, entries};
  put(r, 2);
}

}  // namespace nanopu::apps
