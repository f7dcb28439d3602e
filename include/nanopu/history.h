// A history of operations in Jepsen's model (docs/services.md, "A history
// of every call"): one event a line, as JSON,
//
//   {"index":0,"time":1200,"process":0,"type":"invoke","f":"write","key":3,"value":7}
//   {"index":1,"time":2900,"process":0,"type":"ok","f":"write","key":3,"value":7}
//
// an `invoke` when an operation is sent, then `ok` (it happened, `value`
// its result), `fail` (it certainly did not happen) or `info` (its outcome
// is unknown: a deadline, a give-up, a server restarted; it may or may not
// have happened, and its process never invokes again). A process does one
// operation at a time, so a client with several calls in flight is several
// processes. Times are the recording thread's clock (Thread::now_ns()):
// modelled nanoseconds in a simulation, where every host shares one clock;
// the host's own clock live.
//
// Knossos, Elle and Porcupine read this model; nanopu-lincheck
// (nanopu/lincheck.h) checks such a file for linearizability.
#pragma once

#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace nanopu {

enum class HistoryType : uint8_t { kInvoke, kOk, kFail, kInfo };
[[nodiscard]] std::string_view history_type_name(HistoryType t);

// A value: null, an integer, or a list of integers (a compare-and-set's
// [expected, new], a read of several values).
struct HistoryValue {
  enum class Kind : uint8_t { kNull, kInt, kList };
  Kind kind = Kind::kNull;
  int64_t i = 0;
  std::vector<int64_t> list;

  [[nodiscard]] static HistoryValue null() { return {}; }
  [[nodiscard]] static HistoryValue of(int64_t v) { return {Kind::kInt, v, {}}; }
  [[nodiscard]] static HistoryValue of_list(std::vector<int64_t> v) { return {Kind::kList, 0, std::move(v)}; }
  [[nodiscard]] bool is_null() const { return kind == Kind::kNull; }
  bool operator==(const HistoryValue&) const = default;
};

// What an operation is: its function ("read", "write", "cas", "incr", ...),
// the key it touches (none: one register for the whole service), and its
// value (at the invoke: its argument, null for a read; at ok: its result).
struct HistoryOp {
  std::string f;
  std::optional<int64_t> key;
  HistoryValue value;
  bool operator==(const HistoryOp&) const = default;
};

// How an operation ended, as its client judges from the reply.
struct HistoryOutcome {
  HistoryType type = HistoryType::kOk;  // kOk, kFail or kInfo
  HistoryValue value;                   // kOk: the result (a read's value)
};

// One line.
struct HistoryEvent {
  uint64_t index = 0;
  uint64_t time_ns = 0;
  uint64_t process = 0;
  HistoryType type = HistoryType::kInvoke;
  HistoryOp op;
  bool operator==(const HistoryEvent&) const = default;
};

// The events of a run, kept in memory and, when opened on a file, written
// to it as they come (flushed at flush() and when it goes). Thread-safe:
// threads of several cores may record into one.
class History {
 public:
  History() = default;  // in memory only
  // Writes to `path` (truncated first); an error names the path.
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<History>> open(const std::string& path);
  ~History();
  History(const History&) = delete;
  History& operator=(const History&) = delete;

  // A process id never handed out before (0, 1, 2, ...).
  [[nodiscard]] uint64_t new_process();
  // `process` sends `op`; then one complete() for it.
  void invoke(uint64_t process, uint64_t time_ns, const HistoryOp& op);
  // Its end: kOk (op.value its result), kFail or kInfo.
  void complete(uint64_t process, uint64_t time_ns, HistoryType type, const HistoryOp& op);
  // The end of the run: every operation invoked and never completed (a
  // crashed client's, or one in flight when the run stopped) completes as
  // info at `time_ns`, in process order.
  void end(uint64_t time_ns);
  // Operations invoked and not yet completed.
  [[nodiscard]] size_t open_operations() const;
  // The latest time of any event so far (0: none).
  [[nodiscard]] uint64_t latest_time_ns() const;
  // The events so far, in index order.
  [[nodiscard]] std::vector<HistoryEvent> events() const;
  [[nodiscard]] size_t size() const;
  // The file written so far; an error if a write failed.
  absl::Status flush();
  // A recorder failed (the author's hook threw): the first such failure,
  // kept for whoever ran the clients (a simulation ends with it, exit 2).
  void set_error(std::string what);
  [[nodiscard]] std::string error() const;

 private:
  void add(uint64_t process, uint64_t time_ns, HistoryType type, const HistoryOp& op);
  mutable std::mutex mu_;
  std::FILE* out_ = nullptr;
  std::string path_;
  bool write_failed_ = false;
  std::string error_;
  std::vector<HistoryEvent> events_;
  std::map<uint64_t, HistoryOp> open_;  // by process: invoked, not completed
  uint64_t next_process_ = 0;
  uint64_t latest_ns_ = 0;
};

// One client's operations into a history, for a client on a wire format of
// its own (an rpc::Client records through CallRecorder): each operation in
// flight is a process of its own, reused once it ends ok or fail, never
// after info. With no history (nullptr) it records nothing.
class HistoryClient {
 public:
  explicit HistoryClient(History* h) : h_(h) {}
  [[nodiscard]] bool recording() const { return h_ != nullptr; }
  // An operation sent; what identifies it until it ends (its process).
  uint64_t invoke(uint64_t time_ns, HistoryOp op);
  // Its end: ok with its result (a read's value; none: the invoke's
  // value), fail (certainly not done), info (unknown). An unknown token is
  // ignored.
  void ok(uint64_t token, uint64_t time_ns, std::optional<HistoryValue> result = std::nullopt);
  void fail(uint64_t token, uint64_t time_ns);
  void info(uint64_t token, uint64_t time_ns);
  // Every operation still open ends as info (in process order).
  void abandon_all(uint64_t time_ns);

 private:
  void end(uint64_t token, uint64_t time_ns, HistoryType type, const HistoryValue* result);
  History* h_;
  std::map<uint64_t, HistoryOp> open_;  // by process
  std::vector<uint64_t> free_;
};

// An event as one JSON line (no newline).
[[nodiscard]] std::string history_json(const HistoryEvent& e);
// One line back (the fields above, in any order; other fields are
// ignored); an error says what is wrong with it.
[[nodiscard]] absl::StatusOr<HistoryEvent> parse_history_line(std::string_view line);

}  // namespace nanopu
