// nanopu/history.h: the recorder and the JSON-lines form. The line parser
// is hand-written: no library nanopu keeps (Abseil, Boost 1.74, DPDK)
// parses JSON, and a history line is one flat object.
#include "nanopu/history.h"

#include <cerrno>
#include <algorithm>
#include <charconv>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"

namespace nanopu {

std::string_view history_type_name(HistoryType t) {
  switch (t) {
    case HistoryType::kInvoke: return "invoke";
    case HistoryType::kOk: return "ok";
    case HistoryType::kFail: return "fail";
    case HistoryType::kInfo: return "info";
  }
  return "?";
}

absl::StatusOr<std::unique_ptr<History>> History::open(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) return absl::InvalidArgumentError(absl::StrCat("cannot write the history file ", path, ": ",
                                                                   std::strerror(errno)));
  auto h = std::make_unique<History>();
  h->out_ = f;
  h->path_ = path;
  return h;
}

History::~History() {
  if (out_ != nullptr) std::fclose(out_);
}

uint64_t History::new_process() {
  std::lock_guard<std::mutex> lock(mu_);
  return next_process_++;
}

void History::add(uint64_t process, uint64_t time_ns, HistoryType type, const HistoryOp& op) {
  std::lock_guard<std::mutex> lock(mu_);
  if (type == HistoryType::kInvoke) open_[process] = op;
  else open_.erase(process);
  latest_ns_ = std::max(latest_ns_, time_ns);
  events_.push_back(HistoryEvent{events_.size(), time_ns, process, type, op});
  if (out_ == nullptr) return;
  const std::string line = history_json(events_.back()) + "\n";
  if (std::fwrite(line.data(), 1, line.size(), out_) != line.size()) write_failed_ = true;
}

void History::invoke(uint64_t process, uint64_t time_ns, const HistoryOp& op) {
  add(process, time_ns, HistoryType::kInvoke, op);
}

void History::complete(uint64_t process, uint64_t time_ns, HistoryType type, const HistoryOp& op) {
  add(process, time_ns, type, op);
}

void History::end(uint64_t time_ns) {
  std::map<uint64_t, HistoryOp> open;
  {
    std::lock_guard<std::mutex> lock(mu_);
    open.swap(open_);
  }
  for (const auto& [process, op] : open) add(process, time_ns, HistoryType::kInfo, op);
}

uint64_t History::latest_time_ns() const {
  std::lock_guard<std::mutex> lock(mu_);
  return latest_ns_;
}

size_t History::open_operations() const {
  std::lock_guard<std::mutex> lock(mu_);
  return open_.size();
}

void History::set_error(std::string what) {
  std::lock_guard<std::mutex> lock(mu_);
  if (error_.empty()) error_ = std::move(what);
}

std::string History::error() const {
  std::lock_guard<std::mutex> lock(mu_);
  return error_;
}

std::vector<HistoryEvent> History::events() const {
  std::lock_guard<std::mutex> lock(mu_);
  return events_;
}

size_t History::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return events_.size();
}

absl::Status History::flush() {
  std::lock_guard<std::mutex> lock(mu_);
  if (out_ != nullptr && std::fflush(out_) != 0) write_failed_ = true;
  if (write_failed_) return absl::DataLossError("could not write the whole history to " + path_);
  return absl::OkStatus();
}

uint64_t HistoryClient::invoke(uint64_t time_ns, HistoryOp op) {
  if (h_ == nullptr) return 0;
  uint64_t p;
  if (free_.empty()) {
    p = h_->new_process();
  } else {
    p = free_.back();
    free_.pop_back();
  }
  h_->invoke(p, time_ns, op);
  open_[p] = std::move(op);
  return p;
}

void HistoryClient::end(uint64_t token, uint64_t time_ns, HistoryType type, const HistoryValue* result) {
  auto it = open_.find(token);
  if (h_ == nullptr || it == open_.end()) return;
  HistoryOp op = std::move(it->second);
  open_.erase(it);
  if (result != nullptr) op.value = *result;
  h_->complete(token, time_ns, type, op);
  if (type != HistoryType::kInfo) free_.push_back(token);  // an info's process never invokes again
}

void HistoryClient::ok(uint64_t token, uint64_t time_ns, std::optional<HistoryValue> result) {
  end(token, time_ns, HistoryType::kOk, result ? &*result : nullptr);
}
void HistoryClient::fail(uint64_t token, uint64_t time_ns) { end(token, time_ns, HistoryType::kFail, nullptr); }
void HistoryClient::info(uint64_t token, uint64_t time_ns) { end(token, time_ns, HistoryType::kInfo, nullptr); }

void HistoryClient::abandon_all(uint64_t time_ns) {
  std::vector<uint64_t> open;
  for (const auto& [p, op] : open_) open.push_back(p);
  for (uint64_t p : open) info(p, time_ns);
}

namespace {

void append_json_string(std::string* out, std::string_view s) {
  out->push_back('"');
  for (const char c : s) {
    switch (c) {
      case '"': out->append("\\\""); break;
      case '\\': out->append("\\\\"); break;
      case '\n': out->append("\\n"); break;
      case '\t': out->append("\\t"); break;
      case '\r': out->append("\\r"); break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) absl::StrAppend(out, "\\u00", absl::Hex(static_cast<int>(c), absl::kZeroPad2));
        else out->push_back(c);
    }
  }
  out->push_back('"');
}

void append_value(std::string* out, const HistoryValue& v) {
  switch (v.kind) {
    case HistoryValue::Kind::kNull: out->append("null"); return;
    case HistoryValue::Kind::kInt: absl::StrAppend(out, v.i); return;
    case HistoryValue::Kind::kList:
      out->push_back('[');
      for (size_t i = 0; i < v.list.size(); ++i) absl::StrAppend(out, i ? "," : "", v.list[i]);
      out->push_back(']');
      return;
  }
}

}  // namespace

std::string history_json(const HistoryEvent& e) {
  std::string s = absl::StrCat("{\"index\":", e.index, ",\"time\":", e.time_ns, ",\"process\":", e.process,
                               ",\"type\":\"", std::string(history_type_name(e.type)), "\",\"f\":");
  append_json_string(&s, e.op.f);
  s.append(",\"key\":");
  if (e.op.key) absl::StrAppend(&s, *e.op.key);
  else s.append("null");
  s.append(",\"value\":");
  append_value(&s, e.op.value);
  s.push_back('}');
  return s;
}

namespace {

// A recursive-descent reader of one JSON object's members: the fields a
// history event has are read; any other member's value is skipped whole
// (nesting at most 32 deep: a line is data, never trusted).
class LineReader {
 public:
  explicit LineReader(std::string_view s) : s_(s) {}

  absl::StatusOr<HistoryEvent> event() {
    HistoryEvent e;
    bool has_type = false, has_process = false, has_f = false, has_time = false;
    skip_ws();
    if (!eat('{')) return bad("a line must be one JSON object");
    skip_ws();
    if (!eat('}')) {
      for (;;) {
        std::string name;
        skip_ws();
        if (!string(&name)) return bad("expected a member name in quotes");
        skip_ws();
        if (!eat(':')) return bad("expected ':' after \"" + name + "\"");
        skip_ws();
        if (name == "index") {
          if (!unsigned_int(&e.index)) return bad("\"index\" must be a non-negative integer");
        } else if (name == "time") {
          if (!unsigned_int(&e.time_ns)) return bad("\"time\" must be a non-negative integer (ns)");
          has_time = true;
        } else if (name == "process") {
          if (!unsigned_int(&e.process)) return bad("\"process\" must be a non-negative integer");
          has_process = true;
        } else if (name == "type") {
          std::string t;
          if (!string(&t) || !type_of(t, &e.type)) return bad("\"type\" must be \"invoke\", \"ok\", \"fail\" or \"info\"");
          has_type = true;
        } else if (name == "f") {
          if (!string(&e.op.f) || e.op.f.empty()) return bad("\"f\" must be a non-empty string");
          has_f = true;
        } else if (name == "key") {
          int64_t k = 0;
          if (literal("null")) e.op.key.reset();
          else if (signed_int(&k)) e.op.key = k;
          else return bad("\"key\" must be an integer or null");
        } else if (name == "value") {
          if (!value(&e.op.value)) return bad("\"value\" must be null, an integer or a list of integers");
        } else if (!skip_value(0)) {
          return bad("the value of \"" + name + "\" is not JSON");
        }
        skip_ws();
        if (eat('}')) break;
        if (!eat(',')) return bad("expected ',' or '}'");
      }
    }
    skip_ws();
    if (at_ < s_.size()) return bad("text after the object");
    if (!has_type || !has_process || !has_f || !has_time)
      return absl::InvalidArgumentError("an event needs \"time\", \"process\", \"type\" and \"f\"");
    return e;
  }

 private:
  absl::Status bad(const std::string& what) const {
    return absl::InvalidArgumentError(absl::StrCat(what, " (at column ", at_ + 1, ")"));
  }
  void skip_ws() {
    while (at_ < s_.size() && (s_[at_] == ' ' || s_[at_] == '\t' || s_[at_] == '\r' || s_[at_] == '\n')) ++at_;
  }
  bool eat(char c) {
    if (at_ < s_.size() && s_[at_] == c) return ++at_, true;
    return false;
  }
  bool literal(std::string_view w) {
    if (s_.substr(at_, w.size()) != w) return false;
    at_ += w.size();
    return true;
  }
  static bool type_of(const std::string& t, HistoryType* out) {
    for (HistoryType x : {HistoryType::kInvoke, HistoryType::kOk, HistoryType::kFail, HistoryType::kInfo})
      if (t == history_type_name(x)) return *out = x, true;
    return false;
  }
  // A string's text (escapes decoded; \u to UTF-8, surrogates kept as is).
  bool string(std::string* out) {
    if (!eat('"')) return false;
    out->clear();
    while (at_ < s_.size()) {
      const char c = s_[at_++];
      if (c == '"') return true;
      if (static_cast<unsigned char>(c) < 0x20) return false;
      if (c != '\\') {
        out->push_back(c);
        continue;
      }
      if (at_ >= s_.size()) return false;
      const char esc = s_[at_++];
      switch (esc) {
        case '"': case '\\': case '/': out->push_back(esc); break;
        case 'b': out->push_back('\b'); break;
        case 'f': out->push_back('\f'); break;
        case 'n': out->push_back('\n'); break;
        case 'r': out->push_back('\r'); break;
        case 't': out->push_back('\t'); break;
        case 'u': {
          if (at_ + 4 > s_.size()) return false;
          unsigned cp = 0;
          const auto [end, ec] = std::from_chars(s_.data() + at_, s_.data() + at_ + 4, cp, 16);
          if (ec != std::errc() || end != s_.data() + at_ + 4) return false;
          at_ += 4;
          if (cp < 0x80) {
            out->push_back(static_cast<char>(cp));
          } else if (cp < 0x800) {
            out->push_back(static_cast<char>(0xc0 | cp >> 6));
            out->push_back(static_cast<char>(0x80 | (cp & 0x3f)));
          } else {
            out->push_back(static_cast<char>(0xe0 | cp >> 12));
            out->push_back(static_cast<char>(0x80 | (cp >> 6 & 0x3f)));
            out->push_back(static_cast<char>(0x80 | (cp & 0x3f)));
          }
          break;
        }
        default: return false;
      }
    }
    return false;
  }
  bool signed_int(int64_t* v) {
    const char* b = s_.data() + at_;
    const auto [end, ec] = std::from_chars(b, s_.data() + s_.size(), *v);
    if (ec != std::errc() || end == b) return false;
    // A number that goes on as a fraction or exponent is not an integer.
    if (end < s_.data() + s_.size() && (*end == '.' || *end == 'e' || *end == 'E')) return false;
    at_ += static_cast<size_t>(end - b);
    return true;
  }
  bool unsigned_int(uint64_t* v) {
    int64_t x = 0;
    if (!signed_int(&x) || x < 0) return false;
    *v = static_cast<uint64_t>(x);
    return true;
  }
  bool value(HistoryValue* v) {
    int64_t x = 0;
    if (literal("null")) return *v = HistoryValue::null(), true;
    if (signed_int(&x)) return *v = HistoryValue::of(x), true;
    if (!eat('[')) return false;
    std::vector<int64_t> list;
    skip_ws();
    if (!eat(']')) {
      for (;;) {
        skip_ws();
        if (!signed_int(&x)) return false;
        list.push_back(x);
        skip_ws();
        if (eat(']')) break;
        if (!eat(',')) return false;
      }
    }
    *v = HistoryValue::of_list(std::move(list));
    return true;
  }
  bool number() {
    const size_t start = at_;
    eat('-');
    while (at_ < s_.size() && ((s_[at_] >= '0' && s_[at_] <= '9') || s_[at_] == '.' || s_[at_] == 'e' ||
                               s_[at_] == 'E' || s_[at_] == '+' || s_[at_] == '-'))
      ++at_;
    return at_ > start && s_[at_ - 1] >= '0' && s_[at_ - 1] <= '9';
  }
  bool skip_value(int depth) {
    if (depth > 32) return false;
    std::string ignored;
    if (at_ >= s_.size()) return false;
    const char c = s_[at_];
    if (c == '"') return string(&ignored);
    if (c == '{' || c == '[') {
      const char close = c == '{' ? '}' : ']';
      ++at_;
      skip_ws();
      if (eat(close)) return true;
      for (;;) {
        skip_ws();
        if (c == '{') {
          if (!string(&ignored)) return false;
          skip_ws();
          if (!eat(':')) return false;
          skip_ws();
        }
        if (!skip_value(depth + 1)) return false;
        skip_ws();
        if (eat(close)) return true;
        if (!eat(',')) return false;
      }
    }
    return literal("null") || literal("true") || literal("false") || number();
  }

  std::string_view s_;
  size_t at_ = 0;
};

}  // namespace

absl::StatusOr<HistoryEvent> parse_history_line(std::string_view line) { return LineReader(line).event(); }

}  // namespace nanopu
