// The load flags every client program shares (nanopu/loadgen_main.h), and
// what client_main() and nanopu-loadgen do with them besides Options:
// --timing_params, --calibrate, --json, --stats, --check_flags.
#pragma once

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "model/timing/calibration.h"
#include "model/timing/timing_params.h"

namespace nanopu::loadgen {

// --timing_params as a parameter set.
[[nodiscard]] absl::StatusOr<model::TimingParams> timing_from_flags();

// With --calibrate: this host's API costs measured (about 15 ms), one line
// about them on stderr after `prefix`, and their JSON member.
struct Calibration {
  std::optional<model::HostCosts> costs;
  std::string json;  // empty without
};
[[nodiscard]] Calibration calibrate_if_asked(const model::TimingParams& p, const std::string& prefix);
// The same, `asked` read earlier (--calibrate: calibrate_flag()).
[[nodiscard]] Calibration calibrate_if(bool asked, const model::TimingParams& p, const std::string& prefix);
[[nodiscard]] bool calibrate_flag();

// A client's defaults where they differ from a server's (shared flags,
// runtime/flags/program_flags.h): its own address 10.0.0.2, context 2.
// Before parsing.
void set_client_defaults();

[[nodiscard]] std::string json_path_flag();
[[nodiscard]] bool stats_flag();
[[nodiscard]] bool check_flags_flag();

// Writes result_json with `members` and the calibration added to the
// object, to `path` ('-': stdout); false if the file cannot be written.
[[nodiscard]] bool write_json(const std::string& path, const std::string& result_json,
                              const std::string& members, const std::string& calibration_json);

}  // namespace nanopu::loadgen
