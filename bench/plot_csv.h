// Shared by the bench/ programs: a CSV plotted to a PNG by
// bench/figures/plot.py (python3-matplotlib).
#pragma once

#include <sys/stat.h>

#include <cstdlib>
#include <string>

namespace nanopu::bench {

// One CSV cell (RFC 4180): quoted when it holds a comma or a quote, its
// quotes doubled ("1 core, traditional path"); as it is otherwise.
inline std::string csv_cell(const std::string& v) {
  if (v.find_first_of(",\"") == std::string::npos) return v;
  std::string q = "\"";
  for (char c : v) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

// kind: "line" (first column x, every other a series; or a long table of
// series, x, y) or "bar". Returns false when the plot could not be made
// (the plotter says why on stderr: no python3-matplotlib, a table it cannot read).
inline bool plot_csv(const std::string& csv, const std::string& png, const std::string& kind,
                     const std::string& title, const std::string& ylabel) {
  // Debian's python3-matplotlib belongs to /usr/bin/python3 (a python3
  // earlier on PATH, e.g. pyenv's, may not have it).
  struct stat st {};
  const std::string python = stat("/usr/bin/python3", &st) == 0 ? "/usr/bin/python3" : "python3";
  const std::string cmd = python + " '" + NANOPU_PLOT_SCRIPT + "' '" + csv + "' '" + png + "' " + kind + " '" +
                          title + "' '" + ylabel + "'";
  return std::system(cmd.c_str()) == 0;
}

}  // namespace nanopu::bench
