#include "runtime/check/models.h"

namespace nanopu::lincheck {
namespace {

bool is_pair(const HistoryValue& v) { return v.kind == HistoryValue::Kind::kList && v.list.size() == 2; }

class Register final : public Model {
 public:
  HistoryValue initial() const override { return HistoryValue::null(); }
  absl::Status accepts(const Operation& op) const override {
    if (op.f == "read" || op.f == "write") return absl::OkStatus();
    if (op.f == "cas") {
      if (!is_pair(op.input)) return absl::InvalidArgumentError("a cas's value must be [expected, new]");
      return absl::OkStatus();
    }
    return absl::InvalidArgumentError("the register model has read, write and cas, not '" + op.f + "'");
  }
  std::optional<HistoryValue> step(const HistoryValue& s, const Operation& op) const override {
    if (op.f == "write") return op.input;
    if (op.f == "read") return !op.completed || op.output == s ? std::optional(s) : std::nullopt;
    // cas: it happened, so the state was the expected value.
    if (s != HistoryValue::of(op.input.list[0])) return std::nullopt;
    return HistoryValue::of(op.input.list[1]);
  }
  std::optional<HistoryValue> writes(const Operation& op) const override {
    if (op.f == "write") return op.input;
    if (op.f == "cas") return HistoryValue::of(op.input.list[1]);
    return std::nullopt;
  }
  std::vector<HistoryValue> observes(const Operation& op) const override {
    if (op.f == "read") return {op.output};
    if (op.f == "cas") return {HistoryValue::of(op.input.list[0])};
    return {};
  }
};

class Counter final : public Model {
 public:
  HistoryValue initial() const override { return HistoryValue::of(0); }
  absl::Status accepts(const Operation& op) const override {
    if (op.f == "read") return absl::OkStatus();
    if (op.f == "incr") {
      if (op.input.kind == HistoryValue::Kind::kList) return absl::InvalidArgumentError("an incr's value: an integer or null");
      return absl::OkStatus();
    }
    return absl::InvalidArgumentError("the counter model has incr and read, not '" + op.f + "'");
  }
  std::optional<HistoryValue> step(const HistoryValue& s, const Operation& op) const override {
    if (op.f == "incr") return HistoryValue::of(s.i + (op.input.is_null() ? 1 : op.input.i));
    return !op.completed || op.output == s ? std::optional(s) : std::nullopt;
  }
  std::optional<HistoryValue> writes(const Operation&) const override { return std::nullopt; }
  std::vector<HistoryValue> observes(const Operation&) const override { return {}; }
};

// [value, version]: a write's version above the state's.
class Versioned final : public Model {
 public:
  HistoryValue initial() const override { return HistoryValue::null(); }
  absl::Status accepts(const Operation& op) const override {
    if (op.f == "read") return absl::OkStatus();
    if (op.f == "write") {
      if (!is_pair(op.input)) return absl::InvalidArgumentError("a versioned write's value must be [value, version]");
      return absl::OkStatus();
    }
    return absl::InvalidArgumentError("the versioned model has read and write, not '" + op.f + "'");
  }
  std::optional<HistoryValue> step(const HistoryValue& s, const Operation& op) const override {
    if (op.f == "write") {
      if (!s.is_null() && op.input.list[1] <= s.list[1]) return std::nullopt;
      return op.input;
    }
    return !op.completed || op.output == s ? std::optional(s) : std::nullopt;
  }
  std::optional<HistoryValue> writes(const Operation& op) const override {
    return op.f == "write" ? std::optional(op.input) : std::nullopt;
  }
  std::vector<HistoryValue> observes(const Operation& op) const override {
    return op.f == "read" ? std::vector{op.output} : std::vector<HistoryValue>{};
  }
};

}  // namespace

const std::vector<std::string>& model_names() {
  static const std::vector<std::string> names = {"register", "counter", "versioned"};
  return names;
}

std::unique_ptr<Model> make_model(std::string_view name) {
  if (name == "register") return std::make_unique<Register>();
  if (name == "counter") return std::make_unique<Counter>();
  if (name == "versioned") return std::make_unique<Versioned>();
  return nullptr;
}

}  // namespace nanopu::lincheck
