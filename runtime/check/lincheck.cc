// nanopu/lincheck.h: a history's operations by key, each key's searched.
#include "nanopu/lincheck.h"

#include <chrono>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "runtime/check/models.h"
#include "runtime/check/operations.h"
#include "runtime/check/search.h"

namespace nanopu::lincheck {

std::string_view verdict_name(Verdict v) {
  switch (v) {
    case Verdict::kLinearizable: return "linearizable";
    case Verdict::kNotLinearizable: return "not linearizable";
    case Verdict::kUnknown: return "unknown";
  }
  return "?";
}

namespace {

std::string value_key(const HistoryValue& v) {
  std::string k = absl::StrCat(static_cast<int>(v.kind), ":", v.i);
  for (int64_t x : v.list) absl::StrAppend(&k, ",", x);
  return k;
}

// Info operations, placed as narrowly as what others observed allows: one
// that writes a value nobody observed is left out (it may not have
// happened, and placing it could only constrain the rest; a versioned
// write never has to be placed to let a higher version in); one whose
// value only it wrote, and some completed operation observed, happened
// before the first such observer completed, so it completes then. Without
// this an info operation stays open to the end of time, and a history of
// a thousand of them (a crashed server's calls) is a search of 2^1000.
void settle_info(const Model& m, std::vector<Operation>& ops) {
  absl::flat_hash_map<std::string, uint64_t> first_seen;  // value -> earliest observer's completion
  absl::flat_hash_map<std::string, int> writers;
  for (const Operation& op : ops) {
    if (op.completed)
      for (const HistoryValue& v : m.observes(op)) {
        auto [it, fresh] = first_seen.emplace(value_key(v), op.return_ns);
        if (!fresh) it->second = std::min(it->second, op.return_ns);
      }
    if (const std::optional<HistoryValue> w = m.writes(op)) ++writers[value_key(*w)];
  }
  std::erase_if(ops, [&](Operation& op) {
    if (op.completed) return false;
    const std::optional<HistoryValue> w = m.writes(op);
    if (!w) return false;  // its effect depends on the state: open to the end
    const std::string k = value_key(*w);
    auto seen = first_seen.find(k);
    if (seen == first_seen.end()) return true;
    if (writers[k] == 1 && seen->second >= op.invoke_ns) {
      op.observed = true;
      op.return_ns = seen->second;
    }
    return false;
  });
}

}  // namespace

absl::StatusOr<Result> check(const std::vector<HistoryEvent>& history, std::string_view model, const Limits& limits) {
  const auto t0 = std::chrono::steady_clock::now();
  std::unique_ptr<Model> m = make_model(model);
  if (m == nullptr) {
    std::string names;
    for (const std::string& n : model_names()) absl::StrAppend(&names, names.empty() ? "" : ", ", n);
    return absl::InvalidArgumentError(absl::StrCat("unknown model '", std::string(model), "': use ", names));
  }
  Result r;
  r.model = std::string(model);
  absl::StatusOr<std::map<std::optional<int64_t>, std::vector<Operation>>> by_key =
      operations_by_key(history, &r.operations);
  if (!by_key.ok()) return by_key.status();
  r.keys = by_key->size();
  for (const auto& [key, ops] : *by_key)
    for (const Operation& op : ops)
      if (absl::Status s = m->accepts(op); !s.ok())
        return absl::InvalidArgumentError(absl::StrCat("event ", op.invoke_index, ": ", s.message()));
  for (auto& [key, ops] : *by_key) settle_info(*m, ops);
  Budget b{t0 + std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(limits.seconds)),
           limits.max_states, 0};
  for (const auto& [key, ops] : *by_key) {
    KeyVerdict v = search(ops, *m, b);
    if (v.verdict == Verdict::kLinearizable) continue;
    r.verdict = v.verdict;
    r.key = key;
    r.why = v.why;
    for (size_t i : v.window) r.window.push_back(ops[i]);
    if (v.verdict == Verdict::kNotLinearizable) break;  // one violation is the answer; unknown: look on
  }
  r.states = b.states_used;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

std::string describe(const Result& r) {
  std::string s = absl::StrFormat("%s (model %s): %u operations over %u keys, %u states searched in %.3f s",
                                  std::string(verdict_name(r.verdict)), r.model, r.operations, r.keys, r.states, r.seconds);
  if (r.verdict == Verdict::kUnknown) absl::StrAppend(&s, "; ", r.why, " (Limits)");
  if (r.verdict != Verdict::kNotLinearizable) return s;
  absl::StrAppend(&s, "\nkey ", r.key ? absl::StrCat(*r.key) : std::string("(none)"),
                  ": these operations cannot be ordered (invoke .. return, ns):");
  for (const Operation& op : r.window) {
    const std::string ret = op.return_ns == UINT64_MAX ? "?" : absl::StrCat(op.return_ns);
    absl::StrAppend(&s, "\n  process ", op.process, " ", op.f, "(", value_text(op.input), ")",
                    op.completed  ? " -> " + value_text(op.output)
                    : op.observed ? std::string(" -> info, observed by then")
                                  : std::string(" -> info"),
                    "  ", op.invoke_ns,
                    " .. ", ret, "  (event ", op.invoke_index, ")");
  }
  return s;
}

}  // namespace nanopu::lincheck
