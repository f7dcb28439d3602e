// A list of hosts as the services' flags give them: "IP:CONTEXT,IP:CONTEXT,..."
// (a Raft cluster, an Othello root's workers).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace nanopu::apps {

struct Peer {
  uint32_t ip = 0;
  uint16_t context = 0;
};

// At least one peer, none listed twice; an error names the bad entry.
[[nodiscard]] absl::StatusOr<std::vector<Peer>> parse_peer_list(const std::string& text);

}  // namespace nanopu::apps
