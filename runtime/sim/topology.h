// A topology file (deploy/netns/topology.py has the format and is the
// reference): the switch, the hosts with their programs and flags, the links.
//
//   switch NAME [nanopu-switch flags...]
//   host   NAME IP MAC PROGRAM [program flags...]
//   link   NAME NAME
//
// PROGRAM is one the running binary offers (nanopu-sim: server, the
// nanopu-server program, and loadgen; an author's binary: the programs it
// declares, nanopu/program.h). The simulation reads the same files
// deploy/netns/run.sh runs and refuses the same mistakes, naming the file
// and line; a program the binary lacks, a flag its program lacks or one
// with no meaning in virtual time are refused when the hosts are made
// (runtime/sim/sim_hosts.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace nanopu::sim {

struct TopologyHost {
  std::string name;
  uint32_t ip = 0;  // host order
  std::string ip_text, mac;
  std::string program;  // as the host line names it
  std::vector<std::string> flags;  // the program's, as written
  int line = 0;
  std::string peer;  // the other end of its one link: a host or the switch
};

struct TopologySwitch {
  std::string name;
  std::vector<std::string> flags;  // nanopu-switch's, as written
  int line = 0;
  std::vector<std::string> ports;  // host names, in link order: port i
};

struct Topology {
  std::string path;
  std::vector<TopologyHost> hosts;
  std::optional<TopologySwitch> sw;
  [[nodiscard]] const TopologyHost* host(const std::string& name) const;
};

// The file's text parsed and checked; errors are "PATH:LINE: what".
[[nodiscard]] absl::StatusOr<Topology> parse_topology(const std::string& path, const std::string& text);
// Reads and parses the file at `path`.
[[nodiscard]] absl::StatusOr<Topology> read_topology(const std::string& path);

// One line split into words as a POSIX shell would (quotes, backslashes,
// '#' comments): hand-written because no library nanopu keeps splits shell
// words. nullopt for an unterminated quote.
[[nodiscard]] std::optional<std::vector<std::string>> split_shell_words(const std::string& line);

}  // namespace nanopu::sim
