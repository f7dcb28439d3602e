// nanopu/buggify.h. A site's choices are a stream of their own, seeded by
// the run's seed and the site (stream_seed): taking a site out, or adding
// one, moves no other site's draws.
#include "nanopu/buggify.h"

#include <atomic>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "absl/strings/str_cat.h"
#include "nanopu/probe.h"
#include "nanopu/seeded_draw.h"

namespace nanopu {
namespace {

std::atomic<bool> g_on{false};

struct Site {
  bool enabled = false;
  SeededDraw draw;
};
struct Sites {
  std::mutex mu;
  uint64_t seed = 0;
  std::unordered_map<uint64_t, Site> by_key;
};
Sites& sites() {
  static Sites* s = new Sites;  // leaked: a site in a static destructor still finds it
  return *s;
}

uint64_t site_key(const char* file, int line) {
  uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a over the file name, then the line mixed in
  for (const char* p = file; *p != '\0'; ++p) h = (h ^ static_cast<unsigned char>(*p)) * 0x100000001b3ull;
  return mix64(h ^ static_cast<uint64_t>(line));
}

}  // namespace

bool buggify(const char* file, int line) {
  if (!g_on.load(std::memory_order_relaxed)) return false;
  Sites& s = sites();
  bool yes = false;
  {
    std::lock_guard<std::mutex> l(s.mu);
    const uint64_t key = site_key(file, line);
    auto it = s.by_key.find(key);
    if (it == s.by_key.end()) {
      Site site{stream_seed(s.seed, key) % 4 == 0, SeededDraw(stream_seed(s.seed, key ^ 0x6275676779ull))};
      it = s.by_key.emplace(key, site).first;
    }
    yes = it->second.enabled && it->second.draw.chance(0.25);
  }
  if (yes) {
    std::string_view name = file;
    name = name.substr(name.rfind('/') == std::string_view::npos ? 0 : name.rfind('/') + 1);
    probe(absl::StrCat("buggify ", absl::string_view(name.data(), name.size()), ":", line));
  }
  return yes;
}

void set_buggify(bool on, uint64_t seed) {
  Sites& s = sites();
  std::lock_guard<std::mutex> l(s.mu);
  s.seed = seed;
  s.by_key.clear();
  g_on.store(on, std::memory_order_relaxed);
}

}  // namespace nanopu
