#include "apps/raft/raft_service.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>

#include "apps/boot/bind_service.h"

namespace nanopu::apps {

bool serve_raft(Thread& t, uint8_t priority, const std::vector<RaftServer>& cluster,
                const RaftNodeConfig& config, RaftStats* stats, RaftStorage* storage) {
  const RaftServer& me = cluster[config.self];
  if (!bind_service(t, me.context, priority, "raft")) return false;
  auto send = [&](const RaftNode::Out& o) {
    const uint32_t ip = o.to_client ? static_cast<uint32_t>(o.client) : cluster[o.server].ip;
    const auto ctx = static_cast<uint16_t>(o.to_client ? o.client >> 32 : cluster[o.server].context);
    if (t.write(AppHeader{ip, ctx, static_cast<uint16_t>(8 * o.words.size())}.word()) != ApiError::kOk)
      return;  // no buffer: Raft's retries (heartbeats, client timeouts) cover it
    for (uint64_t w : o.words) (void)t.write(w);
  };
  auto log = [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); };
  RaftNode node(config, send, log, storage);
  // The thread's clock (modelled time in a simulation), not the wall's.
  const uint64_t epoch_ns = t.now_ns();
  auto now_ms = [&] { return static_cast<double>(t.now_ns() - epoch_ns) / 1e6; };
  node.start(now_ms());
  uint64_t words[kRaftMaxWords];
  const auto step = std::chrono::microseconds(static_cast<int64_t>(config.heartbeat_ms * 1000 / 2));
  while (!t.stopping()) {
    if (t.wait_for(step)) {
      const AppHeader h = AppHeader::from_word(t.read());
      const uint32_t n = std::min<uint32_t>(h.payload_words(), kRaftMaxWords);
      for (uint32_t i = 0; i < n; ++i) words[i] = t.read();
      node.receive(words, n, h.len, now_ms());
      t.msg_done();
    }
    node.tick(now_ms());
    *stats = node.stats();
  }
  return true;
}

}  // namespace nanopu::apps
