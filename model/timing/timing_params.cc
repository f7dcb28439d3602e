#include "model/timing/timing_params.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "absl/strings/ascii.h"

namespace nanopu::model {
namespace {

std::vector<std::pair<const char*, double TimingParams::*>> fields() {
  return {
      {"clock_ghz", &TimingParams::clock_ghz},
      {"link_gbps", &TimingParams::link_gbps},
      {"link_latency_ns", &TimingParams::link_latency_ns},
      {"mac_serial_io_ns", &TimingParams::mac_serial_io_ns},
      {"rx_pipeline_cycles", &TimingParams::rx_pipeline_cycles},
      {"transport_cycles", &TimingParams::transport_cycles},
      {"core_select_cycles", &TimingParams::core_select_cycles},
      {"rx_fifo_cycles", &TimingParams::rx_fifo_cycles},
      {"app_fixed_cycles", &TimingParams::app_fixed_cycles},
      {"app_cycles_per_word", &TimingParams::app_cycles_per_word},
      {"app_loop_cycles", &TimingParams::app_loop_cycles},
      {"tx_fifo_cycles", &TimingParams::tx_fifo_cycles},
      {"packetizer_cycles", &TimingParams::packetizer_cycles},
      {"tx_pipeline_cycles", &TimingParams::tx_pipeline_cycles},
      {"pisa_stage_cycles", &TimingParams::pisa_stage_cycles},
      {"context_switch_cycles", &TimingParams::context_switch_cycles},
      {"dma_fixed_ns", &TimingParams::dma_fixed_ns},
      {"dma_bytes_per_ns", &TimingParams::dma_bytes_per_ns},
  };
}

}  // namespace

absl::StatusOr<TimingParams> builtin_timing_params(const std::string& name) {
  TimingParams p;  // the defaults are the "osdi21" set
  if (name == "osdi21") return p;
  if (name == "tail") {
    // The later revision's pipeline is shorter: 13 ns loopback (nanoPU tail-latency version §3).
    p.name = "tail";
    p.rx_pipeline_cycles = 5;
    p.transport_cycles = 3;
    p.core_select_cycles = 1;
    p.rx_fifo_cycles = 2;
    p.tx_fifo_cycles = 2;
    p.packetizer_cycles = 2;
    p.tx_pipeline_cycles = 2;
    p.pisa_stage_cycles = 2.5;
    return p;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown timing parameter set '", name, "' (built in: osdi21, tail)"));
}

absl::StatusOr<TimingParams> named_timing_params(const std::string& name_or_path) {
  if (absl::StatusOr<TimingParams> builtin = builtin_timing_params(name_or_path); builtin.ok()) return builtin;
  std::error_code ec;
  if (!std::filesystem::exists(name_or_path, ec))
    return absl::InvalidArgumentError(absl::StrCat("'", name_or_path,
                                                   "' is no built-in set (osdi21, tail) and no readable file"));
  return load_timing_params(name_or_path);
}

absl::StatusOr<TimingParams> parse_timing_params(const std::string& text, const std::string& source) {
  TimingParams p;
  std::istringstream in(text);
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    absl::string_view l = line;
    if (size_t hash = l.find('#'); hash != absl::string_view::npos) l = l.substr(0, hash);
    l = absl::StripAsciiWhitespace(l);
    if (l.empty()) continue;
    const size_t eq = l.find('=');
    if (eq == absl::string_view::npos)
      return absl::InvalidArgumentError(absl::StrCat(source, ":", n, ": expected key = value"));
    const absl::string_view key = absl::StripAsciiWhitespace(l.substr(0, eq));
    const absl::string_view value = absl::StripAsciiWhitespace(l.substr(eq + 1));
    if (key == "name") {
      p.name = std::string(value);
      continue;
    }
    bool known = false;
    for (const auto& [k, field] : fields()) {
      if (key != k) continue;
      known = true;
      double v = 0;
      if (!absl::SimpleAtod(value, &v) || v < 0)
        return absl::InvalidArgumentError(
            absl::StrCat(source, ":", n, ": ", key, " needs a number >= 0, got '", value, "'"));
      p.*field = v;
    }
    if (!known)
      return absl::InvalidArgumentError(absl::StrCat(source, ":", n, ": unknown key '", key, "'"));
  }
  if (p.clock_ghz <= 0 || p.link_gbps <= 0 || p.dma_bytes_per_ns <= 0)
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": clock_ghz, link_gbps and dma_bytes_per_ns must be > 0"));
  return p;
}

absl::StatusOr<TimingParams> load_timing_params(const std::string& path) {
  // A directory opens as a stream on Linux and reads as nothing: the
  // defaults, silently.
  std::error_code ec;
  std::ifstream f(path);
  if (!f || !std::filesystem::is_regular_file(path, ec))
    return absl::NotFoundError(absl::StrCat("cannot read timing parameters ", path));
  std::stringstream ss;
  ss << f.rdbuf();
  return parse_timing_params(ss.str(), path);
}

}  // namespace nanopu::model
