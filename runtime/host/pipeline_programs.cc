#include "runtime/host/pipeline_programs.h"

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
  if (c.pipeline_program.empty()) {
    if (c.pipeline_entries.empty()) return absl::OkStatus();
    return absl::InvalidArgumentError(
        absl::StrCat("--pipeline_entries=", c.pipeline_entries, ": entries for no --pipeline program"));
  }
  absl::StatusOr<std::string> text = read_file(c.pipeline_program, "pipeline");
  if (!text.ok()) return text.status();
  absl::StatusOr<SwxSpec> spec = read_swx_spec(*text, c.pipeline_program);
  return spec.ok() ? absl::OkStatus() : spec.status();
}

absl::StatusOr<std::vector<std::unique_ptr<SwxProgram>>> load_pipeline_programs(const Config& c,
                                                                                uint32_t nic_cores,
                                                                                uint32_t instance) {
  std::vector<std::unique_ptr<SwxProgram>> programs;
  if (c.pipeline_program.empty()) return programs;
  absl::StatusOr<std::string> text = read_file(c.pipeline_program, "pipeline");
  if (!text.ok()) return text.status();
  for (uint32_t k = 0; k < nic_cores; ++k) {
    absl::StatusOr<std::unique_ptr<SwxProgram>> p = SwxProgram::load(
        *text, c.pipeline_program, kPipelinePorts, absl::StrCat("np", instance, "p", k));
    if (!p.ok()) return p.status();
    programs.push_back(std::move(*p));
  }
  if (!c.pipeline_entries.empty()) {
    absl::StatusOr<std::string> entries = read_file(c.pipeline_entries, "pipeline_entries");
    if (!entries.ok()) return entries.status();
    if (absl::Status s = add_entries(c.pipeline_entries, *entries, programs); !s.ok()) return s;
  }
  return programs;
}

}  // namespace nanopu
