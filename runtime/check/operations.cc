#include "runtime/check/operations.h"

#include <unordered_map>
#include <unordered_set>

#include "absl/strings/str_cat.h"

namespace nanopu::lincheck {
namespace {

absl::Status bad(const HistoryEvent& e, const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat("event ", e.index, " (process ", e.process, "): ", what));
}

}  // namespace

absl::StatusOr<std::map<std::optional<int64_t>, std::vector<Operation>>> operations_by_key(
    const std::vector<HistoryEvent>& history, uint64_t* total) {
  std::map<std::optional<int64_t>, std::vector<Operation>> out;
  std::unordered_map<uint64_t, Operation> open;  // by process
  std::unordered_set<uint64_t> retired;          // processes that ended an operation in info
  auto keep = [&](Operation op) {
    // An info read changed nothing and says nothing: left out.
    if (!op.completed && op.f == "read") return;
    out[op.key].push_back(std::move(op));
  };
  *total = 0;
  for (const HistoryEvent& e : history) {
    if (e.type == HistoryType::kInvoke) {
      if (open.contains(e.process)) return bad(e, "invokes while its last operation has not completed");
      if (retired.contains(e.process))
        return bad(e, "invokes after an operation of its ended in info (a process then never invokes again)");
      Operation op;
      op.process = e.process;
      op.invoke_ns = e.time_ns;
      op.f = e.op.f;
      op.key = e.op.key;
      op.input = e.op.value;
      op.invoke_index = e.index;
      open.emplace(e.process, std::move(op));
      continue;
    }
    auto it = open.find(e.process);
    if (it == open.end()) return bad(e, "completes an operation it never invoked");
    Operation op = std::move(it->second);
    open.erase(it);
    if (e.time_ns < op.invoke_ns)
      return bad(e, absl::StrCat("returns at ", e.time_ns, " ns, before its invoke at ", op.invoke_ns, " ns (event ",
                                 op.invoke_index, ")"));
    if (e.op.f != op.f || e.op.key != op.key)
      return bad(e, absl::StrCat("completes '", e.op.f, "' but invoked '", op.f, "' (event ", op.invoke_index,
                                 "): another function or key"));
    ++*total;
    if (e.type == HistoryType::kFail) continue;  // it did not happen
    if (e.type == HistoryType::kInfo) {
      retired.insert(e.process);
      keep(std::move(op));
      continue;
    }
    op.completed = true;
    op.return_ns = e.time_ns;
    op.output = e.op.value;
    keep(std::move(op));
  }
  for (auto& [process, op] : open) {  // never completed: as info
    ++*total;
    keep(std::move(op));
  }
  return out;
}

std::string value_text(const HistoryValue& v) {
  switch (v.kind) {
    case HistoryValue::Kind::kNull: return "null";
    case HistoryValue::Kind::kInt: return absl::StrCat(v.i);
    case HistoryValue::Kind::kList: {
      std::string s = "[";
      for (size_t i = 0; i < v.list.size(); ++i) absl::StrAppend(&s, i ? "," : "", v.list[i]);
      return s + "]";
    }
  }
  return "?";
}

}  // namespace nanopu::lincheck
