// A topology file (deploy/netns/topology.py has the format and is the
// reference): the switches, the hosts with their programs and flags, the
// links.
//
//   switch NAME [nanopu-switch flags...]
//   host   NAME IP MAC PROGRAM [program flags...]
//   link   NAME NAME [gbps=G] [latency_ns=L]
//
// Several switches linked to each other make a fabric (leaf-spine, a fat
// tree): nanopu-sim routes each host's frames over the shortest paths,
// spread over equal ones by flow hash (ECMP), or by packet with a switch's
// --spray. A link's options set its rate and latency (default: its
// switch's --switch_gbps, the run's --wire_latency_ns). deploy/netns runs
// one switch and no link options, and refuses the rest.
// PROGRAM is one the running binary offers (nanopu-sim: server, the
// nanopu-server program, and loadgen; an author's binary: the programs it
// declares, nanopu/program.h). The simulation reads the same files
// deploy/netns/run.sh runs and refuses the same mistakes, naming the file
// and line; a program the binary lacks, a flag its program lacks or one
// with no meaning in virtual time are refused when the hosts are made
// (runtime/simulation/sim_hosts.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace nanopu::sim {

// A link's own rate and latency; 0: the default.
struct TopologyLinkParams {
  double gbps = 0;
  double latency_ns = 0;
};

struct TopologyHost {
  std::string name;
  uint32_t ip = 0;  // host order
  std::string ip_text, mac;
  std::string program;  // as the host line names it
  std::vector<std::string> flags;  // the program's, as written
  int line = 0;
  std::string peer;  // the other end of its one link: a host or a switch
  TopologyLinkParams link;
};

struct TopologySwitch {
  std::string name;
  std::vector<std::string> flags;  // nanopu-switch's, as written
  int line = 0;
  std::vector<std::string> ports;  // host or switch names, in link order: port i
  std::vector<TopologyLinkParams> port_links;  // port i's link
  std::vector<int> port_lines;     // port i's link line
};

struct Topology {
  std::string path;
  std::vector<TopologyHost> hosts;
  std::vector<TopologySwitch> switches;  // in file order; several: a fabric
  [[nodiscard]] const TopologyHost* host(const std::string& name) const;
  [[nodiscard]] const TopologySwitch* switch_named(const std::string& name) const;
  [[nodiscard]] bool is_fabric() const { return switches.size() > 1; }
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
