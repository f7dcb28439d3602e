// Linearizability of a history (nanopu/history.h; docs/services.md,
// "Checking a history"): whether every operation that completed can be
// given one instant between its invoke and its completion such that, taken
// in the order of those instants, the operations are those of a single
// copy of the object (the model). Wing & Gong's search ("Testing and
// verifying concurrent objects", JPDC 1993) with Lowe's memoisation of
// (operations linearized, state) ("Testing for linearizability", CCPE
// 2017), as Knossos and Porcupine check; a history of keyed operations is
// checked one key at a time (Herlihy & Wing's locality, Porcupine's
// P-compositionality). Hand-written: no library in this project's package
// sources checks linearizability.
//
// An operation that ended in `fail` did not happen and is left out; one
// that ended in `info` (or never completed) may have happened at any
// instant after its invoke, or not at all; a read that ended in info says
// nothing and is left out.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "nanopu/history.h"

namespace nanopu::lincheck {

enum class Verdict : uint8_t {
  kLinearizable,
  kNotLinearizable,
  kUnknown,  // the search ran out of its time or state budget (Limits)
};
[[nodiscard]] std::string_view verdict_name(Verdict v);

// The models (objects a history's operations act on):
//   register   f: read, write, cas ([expected, new]); a key never written reads null
//   counter    f: incr (value: the amount, null: 1), read; starts at 0
//   versioned  a register whose writes carry [value, version] and whose
//              reads return [value, version]: versions of a key must rise
//              with each write in the order linearized (chain replication's
//              head assigns them), a key never written reads null
[[nodiscard]] const std::vector<std::string>& model_names();

// One operation: an invoke and how it ended.
struct Operation {
  uint64_t process = 0;
  uint64_t invoke_ns = 0;
  uint64_t return_ns = UINT64_MAX;  // UINT64_MAX: info, or never completed
  std::string f;
  std::optional<int64_t> key;
  HistoryValue input, output;
  bool completed = false;  // ok; false: info
  // An info operation a completed one observed (a read of the value only
  // it wrote): it happened, before the first observer completed
  // (return_ns is then that completion's time).
  bool observed = false;
  uint64_t invoke_index = 0;  // its invoke's event index (line - 1)
};

struct Limits {
  double seconds = 60;                  // per history
  uint64_t max_states = 20'000'000;     // memoised (linearized set, state) pairs, all keys together
};

struct Result {
  Verdict verdict = Verdict::kLinearizable;
  std::string model;
  uint64_t operations = 0, keys = 0, states = 0;
  double seconds = 0;
  // kNotLinearizable: the key whose operations cannot be ordered, the
  // operation that could not be placed before its completion and those
  // concurrent with it (the smallest window the search found, by invoke
  // time); kUnknown: which budget ran out.
  std::optional<int64_t> key;
  std::vector<Operation> window;
  std::string why;
};

// Checks `history` against `model`. InvalidArgument (naming the event's
// index, its line less one) for a history that is not one: a completion
// with no invoke, before its invoke in time or of another f or key, an
// invoke by a process already busy or retired by an info, an unknown model
// or an f the model does not have.
[[nodiscard]] absl::StatusOr<Result> check(const std::vector<HistoryEvent>& history, std::string_view model,
                                           const Limits& limits = {});

// The result in words: the verdict, the counts, and for a violation the
// window of operations with their times.
[[nodiscard]] std::string describe(const Result& r);

// A violation drawn (Porcupine's picture): an SVG of the failing key's
// operations around the window on a time line, a lane per process, the
// operations that cannot be ordered in red, an info one open to the right.
// "" for a result that is no violation. (nanopu-lincheck --svg=FILE.)
[[nodiscard]] std::string timeline_svg(const std::vector<HistoryEvent>& history, const Result& r);

}  // namespace nanopu::lincheck
