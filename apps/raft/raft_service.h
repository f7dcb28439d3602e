// A Raft server on a nanoPU thread (apps/raft/raft_node.h): bound to one
// context, it takes messages as they come and runs the node's timers in
// between (Thread::wait_for, so an idle server gives its core back).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "apps/peers/peer_list.h"
#include "apps/raft/raft_node.h"
#include "nanopu/thread.h"

namespace nanopu::apps {

// A server of the cluster; --raft_cluster is read by parse_peer_list.
using RaftServer = Peer;

// Serves as cluster[config.self] until the runtime stops; false if the
// bind fails. Leadership changes are logged to stderr ("raft: server S is
// the leader of term T"); *stats is updated as it runs. With `storage`
// (may be null) the node's term, vote and log persist in it.
bool serve_raft(Thread& t, uint8_t priority, const std::vector<RaftServer>& cluster,
                const RaftNodeConfig& config, RaftStats* stats, RaftStorage* storage = nullptr);

}  // namespace nanopu::apps
