#include "nanopu/fault_spec.h"

#include <string>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace nanopu {

absl::Status FaultSpec::validate() const {
  const std::pair<const char*, double> probabilities[] = {
      {"drop", drop}, {"dup", dup}, {"reorder", reorder},
      {"corrupt", corrupt}, {"mangle", mangle}, {"trim", trim}};
  for (const auto& [name, p] : probabilities)
    if (!(p >= 0 && p <= 1))
      return absl::InvalidArgumentError(
          absl::StrCat("faults: ", name, "=", p, " is a probability (0..1)"));
  if (!(delay_us >= 0))
    return absl::InvalidArgumentError(absl::StrCat("faults: delay_us=", delay_us, " must be >= 0"));
  if (!(ack_delay_us >= 0))
    return absl::InvalidArgumentError(absl::StrCat("faults: ack_delay_us=", ack_delay_us, " must be >= 0"));
  return absl::OkStatus();
}

absl::StatusOr<FaultSpec> parse_fault_spec(std::string_view text) {
  FaultSpec s;
  for (absl::string_view item : absl::StrSplit(absl::string_view(text.data(), text.size()), ',', absl::SkipWhitespace())) {
    std::pair<std::string, std::string> kv = absl::StrSplit(item, absl::MaxSplits('=', 1));
    if (kv.first == "seed") {  // all 64 bits (a campaign's stream seeds use them): not through a double
      if (!absl::SimpleAtoi(kv.second, &s.seed))
        return absl::InvalidArgumentError(absl::StrCat("--faults: bad value in '", item, "' (an unsigned integer)"));
      continue;
    }
    double v = 0;
    if (!absl::SimpleAtod(kv.second, &v) || v < 0)
      return absl::InvalidArgumentError(absl::StrCat("--faults: bad value in '", item, "'"));
    const std::string& k = kv.first;
    const bool prob = k != "delay_us" && k != "ack_delay_us" && k != "seed" && k != "drop_once" && k != "trim_once" && k != "no_echo";
    if (prob && v > 1)
      return absl::InvalidArgumentError(absl::StrCat("--faults: ", k, " is a probability (0..1)"));
    if (k == "drop") s.drop = v;
    else if (k == "dup") s.dup = v;
    else if (k == "reorder") s.reorder = v;
    else if (k == "corrupt") s.corrupt = v;
    else if (k == "mangle") s.mangle = v;
    else if (k == "trim") s.trim = v;
    else if (k == "delay_us") s.delay_us = v;
    else if (k == "ack_delay_us") s.ack_delay_us = v;
    else if (k == "drop_once") s.drop_once = v != 0;
    else if (k == "trim_once") s.trim_once = v != 0;
    else if (k == "no_echo") s.no_echo = v != 0;
    else
      return absl::InvalidArgumentError(absl::StrCat(
          "--faults: unknown fault '", k,
          "' (drop, dup, reorder, delay_us, ack_delay_us, corrupt, mangle, trim, drop_once, trim_once, no_echo, seed)"));
  }
  return s;
}

}  // namespace nanopu
