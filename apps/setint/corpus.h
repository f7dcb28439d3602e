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

struct Corpus {
  std::vector<std::string> words;             // by word id
  std::vector<std::vector<uint32_t>> docs;     // each document's distinct word ids, ascending
  std::vector<std::string> files;             // the files read, sorted
};

// Reads `dir`; an error if it holds no document.
[[nodiscard]] absl::StatusOr<Corpus> load_corpus(const std::string& dir);

}  // namespace nanopu::apps
