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
#include "lib/base/sim_actor.h"
#include "nanopu/probe.h"
#include "nanopu/seeded_draw.h"

namespace nanopu {
namespace buggify_detail {
std::atomic<bool> on{false};
}  // namespace buggify_detail
namespace {

// A site's on-or-off is the seed's and the site's alone; its yes-or-no
// draws are a stream per (site, actor).
struct Sites {
  std::mutex mu;
  uint64_t seed = 0;
  std::unordered_map<uint64_t, bool> enabled;        // by site
  std::unordered_map<uint64_t, SeededDraw> draws;    // by site and actor
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

bool buggify_detail::draw(const char* file, int line, bool nic) {
  Sites& s = sites();
  bool yes = false;
  {
    std::lock_guard<std::mutex> l(s.mu);
    const uint64_t key = site_key(file, line);
    auto on_it = s.enabled.find(key);
    if (on_it == s.enabled.end()) on_it = s.enabled.emplace(key, stream_seed(s.seed, key) % 4 == 0).first;
    if (!on_it->second) return false;
    const uint64_t stream = key ^ 0x6275676779ull ^ mix64(sim_actor());
    auto it = s.draws.find(stream);
    if (it == s.draws.end()) it = s.draws.emplace(stream, SeededDraw(stream_seed(s.seed, stream))).first;
    yes = it->second.chance(0.25);
  }
  if (yes) {
    // nanopu's own NIC's sites among the runtime's rare paths ("nic.*" in
    // a campaign's coverage), an author's among theirs.
    std::string_view name = file;
    name = name.substr(name.rfind('/') == std::string_view::npos ? 0 : name.rfind('/') + 1);
    probe(absl::StrCat(nic ? "nic.buggify " : "buggify ", absl::string_view(name.data(), name.size()), ":", line));
  }
  return yes;
}

void set_buggify(bool on, uint64_t seed) {
  Sites& s = sites();
  std::lock_guard<std::mutex> l(s.mu);
  s.seed = seed;
  s.enabled.clear();
  s.draws.clear();
  buggify_detail::on.store(on, std::memory_order_relaxed);
}

}  // namespace nanopu
