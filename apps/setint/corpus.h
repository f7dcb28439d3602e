// The set-intersection service's documents (nanoPU OSDI'21 §5.3, Figure 10:
// "document search"). nanopu reads a real text corpus a Debian system
// always has: every regular file of /usr/share/common-licenses (shipped by
// base-files, an Essential package, so identical on every Debian 12 host),
// each paragraph (text between blank lines) with at least kMinWords words
// one document. Words are maximal runs of ASCII letters, lower-cased. Word
// ids rank words by how many documents hold them (most first, ties in
// alphabetical order), so a Zipf draw over ids favours common words as a
// search workload does.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace nanopu::apps {

inline constexpr char kDefaultCorpusDir[] = "/usr/share/common-licenses";
inline constexpr uint32_t kMinWords = 5;
// The paper's scale (nanoPU OSDI'21 §5.3: "a reverse index of 100 Wikipedia
// articles with 200 common English words"): documents spread evenly over
// the paragraphs read, the words the commonest.
inline constexpr uint32_t kDefaultDocuments = 100;
inline constexpr uint32_t kDefaultWords = 200;

struct Corpus {
  std::vector<std::string> words;             // by word id
  std::vector<std::vector<uint32_t>> docs;     // each document's distinct word ids, ascending
  std::vector<std::string> files;             // the files read, sorted
};

// Reads `dir`; keeps `documents` paragraphs (paragraph i·P/documents of
// the P read; 0: all) and the `words` commonest words among them (0: all).
// An error if it holds no document or fewer paragraphs than asked.
[[nodiscard]] absl::StatusOr<Corpus> load_corpus(const std::string& dir, uint32_t documents = kDefaultDocuments,
                                                 uint32_t words = kDefaultWords);

}  // namespace nanopu::apps
