// nanopu/probe.h. One table for the process: a simulation runs every
// host in it, and a campaign takes the counts after each seed. A mutex,
// not a lock-free table: probes mark rare paths, and only while recording.
#include <atomic>
#include <map>
#include <mutex>
#include <set>

#include "nanopu/probe.h"

namespace nanopu {
namespace {

std::atomic<bool> g_recording{false};

struct Table {
  std::mutex mu;
  std::map<std::string, uint64_t, std::less<>> hits;
  std::set<std::string, std::less<>> declared;
};
Table& table() {
  static Table* t = new Table;  // leaked: a probe in a static destructor still finds it
  return *t;
}

}  // namespace

void probe(std::string_view name) {
  if (!g_recording.load(std::memory_order_relaxed)) return;
  Table& t = table();
  std::lock_guard<std::mutex> l(t.mu);
  auto it = t.hits.find(name);
  if (it == t.hits.end()) it = t.hits.emplace(std::string(name), 0).first;
  ++it->second;
}

void declare_probe(std::string_view name) {
  Table& t = table();
  std::lock_guard<std::mutex> l(t.mu);
  t.declared.emplace(name);
}

void record_probes(bool on) { g_recording.store(on, std::memory_order_relaxed); }

std::vector<std::pair<std::string, uint64_t>> take_probe_hits() {
  Table& t = table();
  std::lock_guard<std::mutex> l(t.mu);
  for (const std::string& d : t.declared) t.hits.try_emplace(d, 0);
  std::vector<std::pair<std::string, uint64_t>> out(t.hits.begin(), t.hits.end());
  t.hits.clear();
  return out;
}

}  // namespace nanopu
