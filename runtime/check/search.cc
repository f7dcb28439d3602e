#include "runtime/check/search.h"

#include <algorithm>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/hash/hash.h"
#include "absl/strings/str_cat.h"

namespace nanopu::lincheck {
namespace {

// A configuration: which operations are linearized, and the state after them.
struct Config {
  std::vector<uint64_t> lifted;
  HistoryValue state;
  bool operator==(const Config&) const = default;
  template <typename H>
  friend H AbslHashValue(H h, const Config& c) {
    return H::combine(std::move(h), c.lifted, c.state.kind, c.state.i, c.state.list);
  }
};

class Searcher {
 public:
  Searcher(const std::vector<Operation>& ops, const Model& m, Budget& b) : ops_(ops), m_(m), b_(b) { build(); }
  KeyVerdict run();

 private:
  struct Entry {
    bool call = false;
    size_t op = 0;
    uint64_t time = 0;
  };
  static constexpr size_t kHead = 0;  // the list's sentinel; entries are 1..n

  void build();
  void lift(size_t e) {  // e: a call; its completion goes too
    for (size_t x : {e, match_[e]}) {
      next_[prev_[x]] = next_[x];
      if (next_[x] != 0) prev_[next_[x]] = prev_[x];
    }
  }
  void unlift(size_t e) {  // the reverse of lift(e)
    for (size_t x : {match_[e], e}) {
      next_[prev_[x]] = x;
      if (next_[x] != 0) prev_[next_[x]] = x;
    }
  }
  // The operations still to place that were invoked before completion
  // entry `stuck`, and the last few placed: where the search got furthest.
  std::vector<size_t> window_at(size_t stuck, const std::vector<std::pair<size_t, HistoryValue>>& stack) const;

  const std::vector<Operation>& ops_;
  const Model& m_;
  Budget& b_;
  std::vector<Entry> entries_;  // [0] unused: the head
  std::vector<size_t> next_, prev_, match_;
};

void Searcher::build() {
  std::vector<Entry> e;
  for (size_t i = 0; i < ops_.size(); ++i) {
    e.push_back({true, i, ops_[i].invoke_ns});
    e.push_back({false, i, ops_[i].return_ns});
  }
  // By time; at one instant invokes first (the operations are then
  // concurrent: neither completed before the other began).
  std::stable_sort(e.begin(), e.end(), [](const Entry& a, const Entry& b) {
    return a.time != b.time ? a.time < b.time : a.call > b.call;
  });
  entries_.assign(1, Entry{});
  entries_.insert(entries_.end(), e.begin(), e.end());
  const size_t n = entries_.size();
  next_.resize(n), prev_.resize(n), match_.resize(n);
  std::vector<size_t> call_of(ops_.size());
  for (size_t i = 0; i < n; ++i) {
    next_[i] = i + 1 < n ? i + 1 : 0;
    prev_[i] = i == 0 ? 0 : i - 1;
  }
  for (size_t i = 1; i < n; ++i)
    if (entries_[i].call) call_of[entries_[i].op] = i;
  for (size_t i = 1; i < n; ++i)
    if (!entries_[i].call) match_[i] = call_of[entries_[i].op], match_[call_of[entries_[i].op]] = i;
}

std::vector<size_t> Searcher::window_at(size_t stuck, const std::vector<std::pair<size_t, HistoryValue>>& stack) const {
  std::vector<size_t> w;
  for (size_t i = stack.size() > 3 ? stack.size() - 3 : 0; i < stack.size(); ++i) w.push_back(entries_[stack[i].first].op);
  for (size_t x = next_[kHead]; x != 0 && x != stuck; x = next_[x])
    if (entries_[x].call) w.push_back(entries_[x].op);
  w.push_back(entries_[stuck].op);
  // By invoke time, ties by operation: an operation named twice (in the
  // stack and the list) sits next to itself, and unique() drops it.
  std::sort(w.begin(), w.end(), [&](size_t a, size_t b) {
    return std::make_pair(ops_[a].invoke_ns, a) < std::make_pair(ops_[b].invoke_ns, b);
  });
  w.erase(std::unique(w.begin(), w.end()), w.end());
  return w;
}

KeyVerdict Searcher::run() {
  KeyVerdict out;
  size_t remaining_ok = 0;
  for (const Operation& op : ops_) remaining_ok += op.completed || op.observed;
  absl::flat_hash_set<Config> seen;
  Config c{std::vector<uint64_t>((ops_.size() + 63) / 64, 0), m_.initial()};
  std::vector<std::pair<size_t, HistoryValue>> stack;  // (call entry, state before it)
  size_t best = 0;
  uint64_t steps = 0;
  size_t e = next_[kHead];
  while (remaining_ok != 0) {
    if ((++steps & 4095) == 0 && std::chrono::steady_clock::now() > b_.deadline) {
      out.verdict = Verdict::kUnknown;
      out.why = "the time budget ran out";
      return out;
    }
    if (e == 0) break;  // every completion passed: only info operations are left
    const Entry& x = entries_[e];
    if (x.call) {
      const Operation& op = ops_[x.op];
      if (std::optional<HistoryValue> s = m_.step(c.state, op)) {
        Config next{c.lifted, std::move(*s)};
        next.lifted[x.op / 64] |= uint64_t{1} << (x.op % 64);
        if (!seen.contains(next)) {
          if (b_.states_left == 0) {
            out.verdict = Verdict::kUnknown;
            out.why = "the state budget ran out";
            return out;
          }
          --b_.states_left, ++b_.states_used;
          seen.insert(next);
          stack.emplace_back(e, std::move(c.state));
          c = std::move(next);
          remaining_ok -= op.completed || op.observed;
          lift(e);
          e = next_[kHead];
          continue;
        }
      }
      e = next_[e];
      continue;
    }
    // A completion before its operation was placed: undo the last placement.
    if (stack.size() >= best && stack.size() + 1 > best) {
      best = stack.size() + 1;
      out.window = window_at(e, stack);
    }
    if (stack.empty()) {
      out.verdict = Verdict::kNotLinearizable;
      return out;
    }
    auto [call, before] = std::move(stack.back());
    stack.pop_back();
    const size_t op = entries_[call].op;
    c.lifted[op / 64] &= ~(uint64_t{1} << (op % 64));
    c.state = std::move(before);
    remaining_ok += ops_[op].completed || ops_[op].observed;
    unlift(call);
    e = next_[call];
  }
  out.window.clear();
  return out;
}

}  // namespace

KeyVerdict search(const std::vector<Operation>& ops, const Model& m, Budget& budget) {
  return Searcher(ops, m, budget).run();
}

}  // namespace nanopu::lincheck
