#include "apps/raft/raft_storage.h"

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
size_t replay(const std::string& bytes, RaftStorage::State* s) {
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
[[noreturn]] void fail(const absl::Status& s) {
  std::fprintf(stderr, "raft: --raft_state %s; stopping (its state is not on disk)\n", std::string(s.message()).c_str());
  std::fflush(stderr);
  std::_Exit(1);
}

}  // namespace

absl::StatusOr<std::unique_ptr<RaftStorage>> RaftStorage::open(const std::string& path, bool sync) {
  std::string bytes;
  absl::StatusOr<std::unique_ptr<DurableFile>> f = DurableFile::open(path, &bytes);
  if (!f.ok()) return absl::FailedPreconditionError(absl::StrCat("--raft_state ", f.status().message()));
  std::unique_ptr<RaftStorage> s(new RaftStorage(std::move(*f), sync));
  // A torn tail goes, so that what is appended next is read back aligned.
  if (absl::Status t = s->file_->truncate(replay(bytes, &s->recovered_)); !t.ok())
    return absl::FailedPreconditionError(absl::StrCat("--raft_state ", t.message()));
  return s;
}

RaftStorage::~RaftStorage() = default;

void RaftStorage::put(const uint64_t* words, size_t n) {
  if (absl::Status s = file_->append(words, n * 8); !s.ok()) fail(s);
  if (!sync_) return;
  if (absl::Status s = file_->sync(); !s.ok()) fail(s);
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
