#include "apps/setint/corpus.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "absl/strings/str_format.h"

namespace nanopu::apps {
namespace {

// Each paragraph of `text` as its set of words.
void split_paragraphs(const std::string& text, std::vector<std::set<std::string>>* out) {
  std::istringstream in(text);
  std::string line;
  std::set<std::string> para;
  size_t count = 0;
  auto flush = [&] {
    if (count >= kMinWords) out->push_back(std::move(para));
    para.clear();
    count = 0;
  };
  while (std::getline(in, line)) {
    if (std::all_of(line.begin(), line.end(), [](unsigned char c) { return std::isspace(c); })) {
      flush();
      continue;
    }
    std::string w;
    for (char ch : line + ' ') {
      const auto c = static_cast<unsigned char>(ch);
      if (c < 0x80 && std::isalpha(c)) {
        w += static_cast<char>(std::tolower(c));
      } else if (!w.empty()) {
        para.insert(w);
        ++count;
        w.clear();
      }
    }
  }
  flush();
}

}  // namespace

absl::StatusOr<Corpus> load_corpus(const std::string& dir, uint32_t documents, uint32_t words) {
  namespace fs = std::filesystem;
  std::error_code ec;
  Corpus c;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.is_regular_file() && !e.is_symlink()) c.files.push_back(e.path().string());
  if (ec) return absl::NotFoundError(absl::StrFormat("corpus %s: %s", dir, ec.message()));
  std::sort(c.files.begin(), c.files.end());
  std::vector<std::set<std::string>> paras;
  for (const std::string& f : c.files) {
    std::ifstream in(f, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    split_paragraphs(text.str(), &paras);
  }
  if (paras.empty())
    return absl::NotFoundError(absl::StrFormat("corpus %s: no paragraph of %u or more words", dir, kMinWords));
  if (documents > paras.size())
    return absl::InvalidArgumentError(
        absl::StrFormat("corpus %s: %u documents asked, %zu paragraphs there", dir, documents, paras.size()));
  if (documents != 0) {
    std::vector<std::set<std::string>> kept;
    for (size_t i = 0; i < documents; ++i) kept.push_back(std::move(paras[i * paras.size() / documents]));
    paras = std::move(kept);
  }
  std::map<std::string, uint32_t> df;  // document frequency
  for (const auto& p : paras)
    for (const std::string& w : p) ++df[w];
  c.words.reserve(df.size());
  for (const auto& [w, n] : df) c.words.push_back(w);
  std::stable_sort(c.words.begin(), c.words.end(),
                   [&](const std::string& a, const std::string& b) { return df[a] > df[b]; });
  if (words != 0 && words < c.words.size()) c.words.resize(words);
  std::map<std::string, uint32_t> id;
  for (uint32_t i = 0; i < c.words.size(); ++i) id[c.words[i]] = i;
  for (const auto& p : paras) {
    std::vector<uint32_t> ids;
    for (const std::string& w : p)
      if (const auto it = id.find(w); it != id.end()) ids.push_back(it->second);
    std::sort(ids.begin(), ids.end());
    c.docs.push_back(std::move(ids));
  }
  return c;
}

}  // namespace nanopu::apps
