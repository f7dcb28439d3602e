// A history's operations (nanopu/lincheck.h): each invoke matched to how it
// ended, checked for being a history at all, grouped by key.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "nanopu/history.h"
#include "nanopu/lincheck.h"

namespace nanopu::lincheck {

// The operations to order, by key (no key: std::nullopt): the ok ones and
// the info ones that may have changed something; fails and info reads are
// left out. InvalidArgument names the event (its index) that makes the
// events no history.
[[nodiscard]] absl::StatusOr<std::map<std::optional<int64_t>, std::vector<Operation>>> operations_by_key(
    const std::vector<HistoryEvent>& history, uint64_t* total);

// A value as the checker's reports write it: null, 5, [1,2].
[[nodiscard]] std::string value_text(const HistoryValue& v);

}  // namespace nanopu::lincheck
