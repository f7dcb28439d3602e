// Shared by the bench/ programs: a printed table of figures, each beside the
// reference measured in the same run, and the same rows as JSON.
#pragma once

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

namespace nanopu::bench {

struct Row {
  std::string name;
  double value = 0;      // the figure
  std::string unit;
  std::string reference;  // what it is compared with
  double ref_value = 0;   // the reference, same unit, same run (0: none)
  std::string target;     // e.g. "<= 50 ns"; empty if none
  bool target_met = true;
  bool judged = true;     // false: the run measured only one side of the comparison
  bool modelled = false;  // the timing model's figure, not this machine's
};

// A target relative to a reference cannot be judged when the run measured
// one side alone (nanopu-bench-e2e --side=nanopu or reference), or no
// reference at all.
[[nodiscard]] inline bool unjudged(const Row& r) {
  return !r.target.empty() && (!r.judged || (!r.reference.empty() && r.ref_value <= 0));
}
[[nodiscard]] inline const char* verdict(const Row& r) {
  if (r.target.empty()) return "";
  if (unjudged(r)) return " (not judged: no reference in this run)";
  return r.target_met ? " (met)" : " (NOT met)";
}

inline void print_table(const std::string& title, const std::vector<Row>& rows) {
  bool any_modelled = false;
  for (const Row& r : rows) any_modelled = any_modelled || r.modelled;
  std::printf("\n%s (%s)\n", title.c_str(),
              any_modelled ? "measured in this run unless marked modelled" : "all measured in this run");
  std::printf("%-38s %12s  %-6s %-34s %12s %8s  %s\n", "figure", "value", "unit", "reference",
              "ref value", "ratio", "target");
  for (const Row& r : rows) {
    const double ratio = r.ref_value > 0 ? r.value / r.ref_value : 0;
    const std::string name = r.modelled ? r.name + " (modelled)" : r.name;
    std::printf("%-38s %12.1f  %-6s %-34s %12.1f %8.2f  %s%s\n", name.c_str(), r.value,
                r.unit.c_str(), r.reference.c_str(), r.ref_value, ratio, r.target.c_str(),
                verdict(r));
  }
}

inline bool write_json(const std::string& path, const std::string& title,
                       const std::vector<Row>& rows) {
  std::ofstream f(path);
  f << "{\"title\":\"" << title << "\",\"rows\":[";
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    f << (i ? "," : "") << "{\"name\":\"" << r.name << "\",\"value\":" << r.value << ",\"unit\":\""
      << r.unit << "\",\"kind\":\"" << (r.modelled ? "modelled" : "measured")
      << "\",\"reference\":\"" << r.reference << "\",\"ref_value\":" << r.ref_value
      << ",\"target\":\"" << r.target
      << "\",\"target_met\":" << (r.target_met && !unjudged(r) ? "true" : "false")
      << ",\"judged\":" << (unjudged(r) ? "false" : "true") << "}";
  }
  f << "]}\n";
  return static_cast<bool>(f);
}

}  // namespace nanopu::bench
