// The objects a history may be checked against (nanopu/lincheck.h): each
// says what an operation does to a state, and whether its output fits.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "nanopu/history.h"
#include "nanopu/lincheck.h"

namespace nanopu::lincheck {

class Model {
 public:
  virtual ~Model() = default;
  [[nodiscard]] virtual HistoryValue initial() const = 0;
  // Whether the model has the operation's function, with a well-formed
  // input; an error says what is wrong.
  [[nodiscard]] virtual absl::Status accepts(const Operation& op) const = 0;
  // The state after `op` from `state`, or nullopt when it cannot happen
  // there (an ok read of another value, a cas whose expected value is not
  // the state, a version not above the state's). An info operation's
  // output is unknown: only its effect counts.
  [[nodiscard]] virtual std::optional<HistoryValue> step(const HistoryValue& state, const Operation& op) const = 0;
  // The value `op` leaves as the state when it happens, if that is all it
  // does (a write's, a cas's new one); nullopt when its effect depends on
  // the state (an incr). An info operation whose value no completed
  // operation observes need not be placed at all: placing it can only
  // constrain (Operation::observes).
  [[nodiscard]] virtual std::optional<HistoryValue> writes(const Operation& op) const = 0;
  // The states a completed operation shows were there (a read's output, a
  // cas's expected value).
  [[nodiscard]] virtual std::vector<HistoryValue> observes(const Operation& op) const = 0;
};

// nullptr for a name not in model_names().
[[nodiscard]] std::unique_ptr<Model> make_model(std::string_view name);

}  // namespace nanopu::lincheck
