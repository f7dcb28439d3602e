#include "runtime/host/pipeline_programs.h"

#include <rte_mbuf.h>

#include <fstream>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "nic/pipeline/swx_spec.h"

namespace nanopu {
namespace {

absl::StatusOr<std::string> read_file(const std::string& path, const char* flag) {
  std::ifstream f(path);
  if (!f)
    return absl::InvalidArgumentError(
        absl::StrCat("--", flag, "=", path, ": cannot read the file"));
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// One side's files, the flags that name them, its output ports and its
// rings' tag (SwxProgram names: unique in the process, 16 characters).
struct SideFiles {
  const std::string& program;
  const std::string& entries;
  const char* program_flag;
  const char* entries_flag;
  uint32_t ports;
  const char* ring_tag;
};

SideFiles files_of(const Config& c, PipelineSide side) {
  if (side == PipelineSide::kIngress)
    return {c.pipeline_program, c.pipeline_entries, "pipeline", "pipeline_entries", kPipelinePorts, "p"};
  return {c.egress_program, c.egress_entries, "egress_pipeline", "egress_pipeline_entries", kEgressPorts, "e"};
}

// One side's program file, read and checked as a spec (f.program set).
absl::StatusOr<SwxSpec> read_side_spec(const SideFiles& f) {
  absl::StatusOr<std::string> text = read_file(f.program, f.program_flag);
  if (!text.ok()) return text.status();
  return read_swx_spec(*text, f.program);
}

// The entries file's lines into every program: "TABLE ENTRY", blank lines
// and ';' or '#' comments skipped.
absl::Status add_entries(const std::string& path, const std::string& text,
                         const std::vector<std::unique_ptr<SwxProgram>>& programs) {
  std::istringstream in(text);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    const absl::string_view t = absl::StripAsciiWhitespace(line);
    if (t.empty() || t[0] == ';' || t[0] == '#') continue;
    std::string table, entry;
    if (!split_entry_line(t, &table, &entry))
      return absl::InvalidArgumentError(absl::StrCat(path, ":", n, ": expected TABLE ENTRY (found '", t, "')"));
    for (const std::unique_ptr<SwxProgram>& p : programs)
      if (absl::Status s = p->add_entry(table, entry); !s.ok())
        return absl::InvalidArgumentError(absl::StrCat(path, ":", n, ": ", s.message()));
  }
  return absl::OkStatus();
}

}  // namespace

bool split_entry_line(absl::string_view line, std::string* table, std::string* entry) {
  line = absl::StripAsciiWhitespace(line);
  const size_t space = line.find_first_of(" \t");
  if (space == absl::string_view::npos) return false;
  *table = std::string(line.substr(0, space));
  *entry = std::string(absl::StripAsciiWhitespace(line.substr(space)));
  return true;
}

absl::Status check_pipeline_files(const Config& c) {
  for (const PipelineSide side : {PipelineSide::kIngress, PipelineSide::kEgress}) {
    const SideFiles f = files_of(c, side);
    if (f.program.empty()) {
      if (f.entries.empty()) continue;
      return absl::InvalidArgumentError(absl::StrCat("--", f.entries_flag, "=", f.entries, ": entries for no --",
                                                     f.program_flag, " program"));
    }
    if (absl::StatusOr<SwxSpec> spec = read_side_spec(f); !spec.ok()) return spec.status();
  }
  return absl::OkStatus();
}

uint32_t pipeline_tables(const Config& c, PipelineSide side) {
  const SideFiles f = files_of(c, side);
  if (f.program.empty()) return 0;
  absl::StatusOr<SwxSpec> spec = read_side_spec(f);
  return spec.ok() ? static_cast<uint32_t>(spec->tables.size()) : 0;
}

absl::StatusOr<std::vector<std::unique_ptr<SwxProgram>>> load_pipeline_programs(const Config& c,
                                                                                PipelineSide side,
                                                                                uint32_t nic_cores,
                                                                                uint32_t instance) {
  std::vector<std::unique_ptr<SwxProgram>> programs;
  const SideFiles f = files_of(c, side);
  if (f.program.empty()) return programs;
  absl::StatusOr<std::string> text = read_file(f.program, f.program_flag);
  if (!text.ok()) return text.status();
  for (uint32_t k = 0; k < nic_cores; ++k) {
    absl::StatusOr<std::unique_ptr<SwxProgram>> p =
        SwxProgram::load(*text, f.program, f.ports, absl::StrCat("np", instance, f.ring_tag, k));
    if (!p.ok()) return p.status();
    if (side == PipelineSide::kEgress && (*p)->header_bytes() > RTE_PKTMBUF_HEADROOM)
      return absl::InvalidArgumentError(absl::StrCat(
          "--", f.program_flag, "=", f.program, ": its headers (", (*p)->header_bytes(),
          " bytes) could need more room before a frame than a buffer has (", RTE_PKTMBUF_HEADROOM, ")"));
    programs.push_back(std::move(*p));
  }
  if (!f.entries.empty()) {
    absl::StatusOr<std::string> entries = read_file(f.entries, f.entries_flag);
    if (!entries.ok()) return entries.status();
    if (absl::Status s = add_entries(f.entries, *entries, programs); !s.ok()) return s;
  }
  return programs;
}

}  // namespace nanopu
